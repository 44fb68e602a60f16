package decide

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Written is what Strata's segment of a job's admin comment records: the
// decision it last wrote, in which cycle, the begin time it set (zero when
// none), when it last sent the job its checkpoint signal (zero when never),
// whether the job ignored such a signal (non-cooperative: never signalled
// again), and the partitions the user listed when Strata wrote one of them
// as the job's partition, and the time limit the user asked for when
// Strata lowered it (a claim binds the job), and, for the job's owner, why
// in reason codes and the planned start: "strata: workers=W ps=P rank=R
// cycle=C [defer=UNIX] [sig=UNIX] [noncoop=1] [limit=[D-]HH:MM:SS] [parts=A,B]
// [why=CODE[,CODE]] [start=RFC3339] [n=WRITES] [nice=N]". why=, start=,
// n= and nice= come last, so that a reader that stops at the first key it
// does not know (an older Strata) still reads every key before them.
type Written struct {
	Workers, PS, Rank int
	Cycle             int64
	Defer             time.Time
	Signalled         time.Time
	NonCooperative    bool
	// Limit is the job's own time limit before Strata lowered it (0:
	// never lowered). It is written in Slurm's time format ("limit=02:00:00",
	// "limit=1-12:00:00"); the whole minutes of older segments
	// ("limit=120") are still read.
	Limit time.Duration
	Parts []string
	// Why is the decision in at most two reason codes (WhyOf): what
	// happens to the job (deferred, admitted, wait_resources, …) and what
	// Strata changed (allocation_changed, …); planner.Reason.Describe
	// gives the words. Empty in segments written before it existed.
	Why []planner.Reason
	// Start is the plan's start for the job when the segment was written
	// (whole seconds, UTC); zero when unknown.
	Start time.Time
	// Writes counts Strata's writes to the job, this one included ("n=").
	// It is written with the update itself, so it survives a crash between
	// a write and its audit record: the guards count the larger of it and
	// the audit trail's count.
	Writes int
	// Nice, when NiceSet, is the nice Strata last wrote in the nice
	// priority mode ("nice="; planner.PriorityNice). A segment with a rank
	// and no nice= was written in the absolute mode (or before the nice
	// mode existed): the job's priority is Strata's fixed one, which
	// slurmctld keeps until it is released (docs/slurm.md, "Priority
	// modes").
	Nice    int64
	NiceSet bool
}

// AbsoluteWritten reports a segment written in the absolute priority
// mode: it ranks the job and records no nice.
func (w Written) AbsoluteWritten() bool { return w.Rank > 0 && !w.NiceSet }

// whyState and whyChange are the reason codes WhyOf picks, in order: what
// happens to the job, then what Strata changed on it.
var (
	whyState = []planner.Reason{planner.ReasonPreempted, planner.ReasonResizedRestart, planner.ReasonDeferred,
		planner.ReasonAged, planner.ReasonAdmitted, planner.ReasonBurstBufferStaging, planner.ReasonBurstBufferFull,
		planner.ReasonBeginTime, planner.ReasonWaitOrder, planner.ReasonWaitResources}
	whyChange = []planner.Reason{planner.ReasonAllocationChanged, planner.ReasonClaimBound, planner.ReasonPartitionChosen}
)

// WhyOf is the short why of a decision's reasons for the admin comment:
// the first of them that says what happens to the job (deferred,
// admitted, wait_resources, …) and the first that says what Strata
// changed (allocation_changed, claim_bound, partition_chosen), in that
// order; the first reason when neither kind is there; nil without
// reasons.
func WhyOf(reasons []planner.Reason) []planner.Reason {
	var out []planner.Reason
	for _, set := range [][]planner.Reason{whyState, whyChange} {
		for _, r := range set {
			if slices.Contains(reasons, r) {
				out = append(out, r)
				break
			}
		}
	}
	if len(out) == 0 && len(reasons) > 0 {
		out = reasons[:1]
	}
	return out
}

// String is the segment, e.g. "strata: workers=4 ps=0 rank=2 cycle=17".
func (w Written) String() string {
	s := fmt.Sprintf("strata: workers=%d ps=%d rank=%d cycle=%d", w.Workers, w.PS, w.Rank, w.Cycle)
	if !w.Defer.IsZero() {
		s += " defer=" + strconv.FormatInt(w.Defer.Unix(), 10)
	}
	if !w.Signalled.IsZero() {
		s += " sig=" + strconv.FormatInt(w.Signalled.Unix(), 10)
	}
	if w.NonCooperative {
		s += " noncoop=1"
	}
	if w.Limit > 0 {
		s += " limit=" + SlurmTime(w.Limit)
	}
	if len(w.Parts) > 0 {
		s += " parts=" + strings.Join(w.Parts, ",")
	}
	if len(w.Why) > 0 {
		codes := make([]string, len(w.Why))
		for i, r := range w.Why {
			codes[i] = string(r)
		}
		s += " why=" + strings.Join(codes, ",")
	}
	if !w.Start.IsZero() {
		s += " start=" + w.Start.UTC().Truncate(time.Second).Format(time.RFC3339)
	}
	if w.Writes > 0 {
		s += " n=" + strconv.Itoa(w.Writes)
	}
	if w.NiceSet { // last: an older Strata stops reading at it
		s += " nice=" + strconv.FormatInt(w.Nice, 10)
	}
	return s
}

// MergeAdminComment returns the admin comment cur with Strata's segment set
// to w, keeping what other site tools (jobstats, accounting scripts)
// wrote: text before an existing "strata:" segment is kept, the segment
// itself is replaced (Strata's segment always ends the comment), and a
// comment without one gets the segment appended after "; ".
func MergeAdminComment(cur string, w Written) string {
	if i := strings.Index(cur, "strata:"); i >= 0 {
		cur = cur[:i]
	}
	cur = strings.TrimRight(strings.TrimSpace(cur), ";")
	if cur == "" {
		return w.String()
	}
	return cur + "; " + w.String()
}

// ParseAdminComment reads Strata's segment of an admin comment; false when
// there is none or it does not parse. The segment ends at the first key
// that is not Strata's (scontrol prints more after it).
func ParseAdminComment(s string) (Written, bool) {
	i := strings.Index(s, "strata:")
	if i < 0 {
		return Written{}, false
	}
	var w Written
	seen := 0
	for tok := range strings.FieldsSeq(s[i+len("strata:"):]) { // Fields without the slice: every guard reads it
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			break
		}
		switch k {
		case "parts", "why", "start", "limit":
			if !w.setText(k, v) {
				return Written{}, false
			}
			seen++
			continue
		}
		if k != "workers" && k != "ps" && k != "rank" && k != "cycle" && k != "defer" && k != "sig" && k != "noncoop" && k != "n" && k != "nice" {
			break
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return Written{}, false
		}
		switch k {
		case "workers":
			w.Workers = int(n)
		case "ps":
			w.PS = int(n)
		case "rank":
			w.Rank = int(n)
		case "cycle":
			w.Cycle = n
		case "defer":
			w.Defer = time.Unix(n, 0).UTC()
		case "sig":
			w.Signalled = time.Unix(n, 0).UTC()
		case "noncoop":
			w.NonCooperative = n != 0
		case "n":
			w.Writes = int(n)
		case "nice":
			w.Nice, w.NiceSet = n, true
		}
		seen++
	}
	return w, seen > 0
}

// setText sets the key k of the segment that is not a number; false when
// v does not parse.
func (w *Written) setText(k, v string) bool {
	switch k {
	case "parts":
		w.Parts = partList(v)
		return w.Parts != nil
	case "why":
		for _, c := range strings.Split(v, ",") {
			if c == "" || strings.TrimFunc(c, func(r rune) bool { return r == '_' || r >= 'a' && r <= 'z' }) != "" {
				w.Why = nil
				return false
			}
			w.Why = append(w.Why, planner.Reason(c))
		}
		return true
	case "limit":
		d, ok := ParseSlurmTime(v)
		w.Limit = d
		return ok && d > 0
	case "start":
		t, err := time.Parse(time.RFC3339, v)
		w.Start = t.UTC()
		return err == nil
	}
	return false
}

// partList reads a comma-separated list of partition names (Slurm's
// characters: letters, digits, '_', '-', '.'); nil when empty or invalid.
func partList(v string) []string {
	parts := strings.Split(v, ",")
	for _, p := range parts {
		if p == "" || strings.TrimFunc(p, func(r rune) bool {
			return r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		}) != "" {
			return nil
		}
	}
	return parts
}

// SlurmTime writes a time limit as Slurm does ([D-]HH:MM:SS, rounded to
// the second): "02:00:00", "1-12:00:00".
func SlurmTime(d time.Duration) string {
	s := int64(max(0, d).Round(time.Second) / time.Second)
	days, s := s/86400, s%86400
	t := fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
	if days > 0 {
		return strconv.FormatInt(days, 10) + "-" + t
	}
	return t
}

// ParseSlurmTime reads a limit= value: Slurm's [D-]HH:MM:SS (as SlurmTime
// writes it) or, as older segments wrote it, whole minutes ("120"); false
// when it is neither.
func ParseSlurmTime(v string) (time.Duration, bool) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(n) * time.Minute, n >= 0
	}
	var days int64
	if d, rest, ok := strings.Cut(v, "-"); ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		days, v = n, rest
	}
	f := strings.Split(v, ":")
	if len(f) != 3 {
		return 0, false
	}
	var hms [3]int64
	for i, x := range f {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil || n < 0 || i > 0 && (n > 59 || len(x) != 2) {
			return 0, false
		}
		hms[i] = n
	}
	secs := days*86400 + hms[0]*3600 + hms[1]*60 + hms[2]
	return time.Duration(secs) * time.Second, true
}

// Comments keeps jobs' admin comments as ParseAdminComment read them, by
// job, across cycles: a job's comment changes only when it is written,
// and it parses the same way until then, so each is parsed once. Jobs not
// seen in a cycle are dropped after it. The zero value is ready; it is
// not safe for concurrent use.
type Comments struct {
	byJob map[int64]*parsedComment
	gen   uint64 // the cycle (sweeps so far)
	seen  int    // jobs read this cycle
}

type parsedComment struct {
	s   string
	a   admin
	gen uint64
}

// parse is parseAdmin(j), from the cache when j's comment is the one
// parsed before (c nil: parsed).
func (c *Comments) parse(j *planner.Job) admin {
	if c == nil {
		return parseAdmin(j)
	}
	if c.byJob == nil {
		c.byJob = map[int64]*parsedComment{}
	}
	p := c.byJob[j.ID]
	if p == nil {
		p = &parsedComment{s: j.AdminComment, a: parseAdmin(j)}
		c.byJob[j.ID] = p
		c.seen++
	} else {
		if p.s != j.AdminComment {
			p.s, p.a = j.AdminComment, parseAdmin(j)
		}
		if p.gen != c.gen {
			c.seen++
		}
	}
	p.gen = c.gen
	return p.a
}

// sweep ends a cycle: the jobs it did not read are dropped (when they are
// many).
func (c *Comments) sweep() {
	if c == nil {
		return
	}
	if len(c.byJob) > 2*c.seen+64 {
		for id, p := range c.byJob {
			if p.gen != c.gen {
				delete(c.byJob, id)
			}
		}
	}
	c.gen++
	c.seen = 0
}
