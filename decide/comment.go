package decide

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Written is what Strata's segment of a job's admin comment records: the
// decision it last wrote, in which cycle, the begin time it set (zero when
// none), when it last sent the job its checkpoint signal (zero when never),
// whether the job ignored such a signal (non-cooperative: never signalled
// again), and the partitions the user listed when Strata wrote one of them
// as the job's partition, and the time limit the user asked for when
// Strata lowered it (a claim binds the job): "strata: workers=W ps=P
// rank=R cycle=C [defer=UNIX] [sig=UNIX] [noncoop=1] [limit=MINUTES]
// [parts=A,B]".
type Written struct {
	Workers, PS, Rank int
	Cycle             int64
	Defer             time.Time
	Signalled         time.Time
	NonCooperative    bool
	// Limit is the job's own time limit before Strata lowered it (0:
	// never lowered).
	Limit time.Duration
	Parts []string
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
		s += " limit=" + strconv.FormatInt(int64(w.Limit/time.Minute), 10)
	}
	if len(w.Parts) > 0 {
		s += " parts=" + strings.Join(w.Parts, ",")
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
	for _, tok := range strings.Fields(s[i+len("strata:"):]) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			break
		}
		if k == "parts" {
			if w.Parts = partList(v); w.Parts == nil {
				return Written{}, false
			}
			seen++
			continue
		}
		if k != "workers" && k != "ps" && k != "rank" && k != "cycle" && k != "defer" && k != "sig" && k != "noncoop" && k != "limit" {
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
		case "limit":
			w.Limit = time.Duration(n) * time.Minute
		}
		seen++
	}
	return w, seen > 0
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
