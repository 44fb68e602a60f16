package decide

import (
	"fmt"
	"strings"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Options are the write limits between the planner, which may propose a
// change for every pending job, and the writer, which writes whatever it is
// given. The zero value writes nothing (MaxPerCycle 0); Defaults are the
// daemon's.
type Options struct {
	// MaxPerCycle caps the jobs written per cycle (best ranks first).
	MaxPerCycle int
	// MaxPerJob caps how often one job's GPU request is ever changed;
	// priorities and begin times are bounded by the hysteresis and by
	// MaxWritesPerJob.
	MaxPerJob int
	// MaxWritesPerJob caps every write to one job (priority, begin time,
	// GPUs, time limit, partition; 0 = no cap); MaxFailedWrites the writes
	// that failed (slurmrestd refused them or the read-back differed; 0 =
	// no cap). Past either Strata stops writing to the job and says so.
	MaxWritesPerJob int
	MaxFailedWrites int
	// PriorityHysteresis: a priority change smaller than this is not sent;
	// in the nice priority mode, a change of nice smaller than this.
	PriorityHysteresis int64
	// MinGPUChange: a GPU count change smaller than this is not sent.
	MinGPUChange int
	// MaxDefer caps how far ahead a begin time is written, so a stopped
	// daemon delays no job for longer (0: no cap). A deferral still wanted
	// is refreshed before it runs out.
	MaxDefer time.Duration
	// DeferSlack: a begin time already in effect within this of the
	// plan's is left as it is (fewer writes as predictions move).
	DeferSlack time.Duration

	// Preemptions (a preemptible running job sent its checkpoint signal):
	// MinRunBeforePreempt is the least time a job runs after its (re)start
	// before it may be preempted; MaxPreemptPerDay caps a job's
	// preemptions in any 24 hours; MaxDisturbedGPUHours caps, per cycle,
	// the running GPU-hours the cycle's preemptions disturb (each job's
	// GPUs × the time it has run since it last started:
	// DisturbedGPUHours). Zero values allow no preemption at all.
	MinRunBeforePreempt  time.Duration
	MaxPreemptPerDay     int
	MaxDisturbedGPUHours float64
	// RequeueTimeout: a job sent its checkpoint signal that still runs the
	// same run this long after is marked non-cooperative (never signalled
	// again: NonCooperative); 0 = DefaultRequeueTimeout.
	RequeueTimeout time.Duration
}

// DefaultRequeueTimeout is Options.RequeueTimeout's default.
const DefaultRequeueTimeout = 5 * time.Minute

// Defaults are the daemon's write limits (its flags' defaults); the
// preemption limits are the planner's own defaults.
func Defaults() Options {
	return Options{MaxPerCycle: 20, MaxPerJob: 3, MaxWritesPerJob: 100, MaxFailedWrites: 3, PriorityHysteresis: 100, MinGPUChange: 1,
		MaxDefer: 30 * time.Minute, DeferSlack: 2 * time.Minute,
		MinRunBeforePreempt:  planner.DefaultMinRunBeforePreempt,
		MaxPreemptPerDay:     planner.DefaultMaxPreemptPerDay,
		MaxDisturbedGPUHours: planner.DefaultMaxDisturbedGPUHours}
}

// Validate names the first option out of range by its flag.
func (o Options) Validate() error {
	switch {
	case o.MaxPerCycle < 0:
		return fmt.Errorf("--max-rewrites-per-cycle %d: must be ≥ 0", o.MaxPerCycle)
	case o.MaxPerJob < 0:
		return fmt.Errorf("--max-rewrites-per-job %d: must be ≥ 0", o.MaxPerJob)
	case o.MaxWritesPerJob < 0:
		return fmt.Errorf("--max-writes-per-job %d: must be ≥ 0 (0: no cap)", o.MaxWritesPerJob)
	case o.MaxFailedWrites < 0:
		return fmt.Errorf("--max-failed-writes %d: must be ≥ 0 (0: no cap)", o.MaxFailedWrites)
	case o.PriorityHysteresis < 0:
		return fmt.Errorf("--priority-hysteresis %d: must be ≥ 0", o.PriorityHysteresis)
	case o.MinGPUChange < 0:
		return fmt.Errorf("--min-gpu-change %d: must be ≥ 0", o.MinGPUChange)
	case o.MaxDefer < 0:
		return fmt.Errorf("--max-defer %v: must be ≥ 0", o.MaxDefer)
	case o.DeferSlack < 0:
		return fmt.Errorf("defer slack %v: must be ≥ 0", o.DeferSlack)
	case o.MinRunBeforePreempt < 0:
		return fmt.Errorf("--min-run-before-preempt %v: must be ≥ 0", o.MinRunBeforePreempt)
	case o.MaxPreemptPerDay < 0:
		return fmt.Errorf("--max-preempt-per-day %d: must be ≥ 0", o.MaxPreemptPerDay)
	case o.MaxDisturbedGPUHours < 0 || o.MaxDisturbedGPUHours != o.MaxDisturbedGPUHours:
		return fmt.Errorf("--max-disturbed-gpu-hours %v: must be ≥ 0", o.MaxDisturbedGPUHours)
	}
	return nil
}

// Verdict is the guards' answer for one decision: Send is the (possibly
// trimmed) decision to pass to the writer; when Write is false, Outcome and
// Guard say why nothing is written.
type Verdict struct {
	Send    planner.Decision
	Write   bool
	Outcome Outcome
	Guard   Name
}

// Plan applies the write limits to a plan, in plan order (rank). jobs are
// the snapshot's jobs by ID, resizes the GPU-request changes already
// applied per job, preempts the preemptions of each job in the last 24
// hours, now the snapshot's time. It is pure: same inputs, same verdicts.
// The daemon (strata run, strata plan --enforce) and the simulator's Slurm
// mode both write through it.
//
// A preempt decision that passes (Write) is a signal to send: Send keeps
// ActionPreempt, and its Workers/GPUsPerNode/NodeCount (and PS) are the
// size the job restarts at, written while it is pending after its requeue
// (zero: the size it had). Signals count against MaxPerCycle like updates.
func Plan(p planner.Plan, jobs map[int64]*planner.Job, resizes, preempts map[int64]int, now time.Time, o Options) []Verdict {
	return PlanWith(p, jobs, History{Resizes: resizes, Preempts: preempts}, now, o)
}

// PlanWith is Plan with the whole history: besides the resize and
// preemption counts, every job's writes so far (History.Writes, or the
// count Slurm's record carries, the larger) against MaxWritesPerJob, and
// its failed writes (History.Failed) against MaxFailedWrites: past either
// cap Strata stops writing to the job and says so (write_cap,
// writes_failing).
func PlanWith(p planner.Plan, jobs map[int64]*planner.Job, hist History, now time.Time, o Options) []Verdict {
	return planWith(make([]Verdict, 0, len(p.Decisions)), p, jobs, hist, now, o)
}

// planWith is PlanWith appending the verdicts to out (each built in its
// place: a Verdict is large).
func planWith(out []Verdict, p planner.Plan, jobs map[int64]*planner.Job, hist History, now time.Time, o Options) []Verdict {
	resizes, preempts := hist.Resizes, hist.Preempts
	sent := 0
	disturbed := 0.0
	for k := range p.Decisions {
		d := &p.Decisions[k]
		j := jobs[d.JobID]
		out = append(out, Verdict{Send: *d})
		v := &out[len(out)-1]
		switch {
		case d.Action == planner.ActionMarkNonCooperative: // a record, counted like any write
			v.Write, v.Outcome = j != nil && j.State == planner.JobRunning, Kept
			if v.Write {
				v.Outcome = ""
				if g := writeCap(j, parseAdmin(j), hist, o); g != "" {
					v.Write, v.Outcome, v.Guard = false, Held, g
				}
			}
		case d.Action == planner.ActionPreempt:
			*v = preempt(*d, j, resizes[d.JobID], preempts[d.JobID], now, o)
			if v.Write {
				h := planner.DisturbedGPUHours(j, now)
				if disturbed+h > o.MaxDisturbedGPUHours {
					v.Write, v.Outcome, v.Guard = false, Held, DisturbCap
				} else if sent < o.MaxPerCycle {
					disturbed += h
				}
			}
		default:
			a := one(v, j, resizes, now, o, hist.Comments)
			if v.Write {
				if g := writeCap(j, a, hist, o); g != "" {
					v.Write, v.Outcome, v.Guard = false, Held, g
				}
			}
		}
		if v.Write {
			if sent >= o.MaxPerCycle {
				v.Write, v.Outcome, v.Guard = false, Held, CycleLimit
			} else {
				sent++
			}
		}
	}
	hist.Comments.sweep()
	return out
}

// writeCap says which per-job write cap holds the job's next write ("":
// none): MaxFailedWrites failed writes (a slurmrestd that accepts writes
// and stores nothing is not written to for ever), or MaxWritesPerJob
// writes of any kind, counted by the audit trail or by Slurm's own record
// of the job (the admin comment's n=, which a crash cannot lose), the
// larger. A cap of 0 is no cap. a is the job's admin comment, parsed.
func writeCap(j *planner.Job, a admin, h History, o Options) Name {
	if o.MaxFailedWrites > 0 && h.Failed[j.ID] >= o.MaxFailedWrites {
		return WritesFailing
	}
	n := h.Writes[j.ID]
	if a.ok {
		n = max(n, a.w.Writes)
	}
	if o.MaxWritesPerJob > 0 && n >= o.MaxWritesPerJob {
		return WriteCap
	}
	return ""
}

// Resizes reports whether a verdict changes the job's GPU request (what the
// per-job cap counts): an update with a new shape. A preempt's restart
// size is written later, after the requeue, and counted then.
func (v Verdict) Resizes() bool {
	return v.Write && v.Send.Action != planner.ActionPreempt && v.Send.GPUsPerNode > 0
}

// preempt decides whether a preempt decision may be sent (the job signalled
// to checkpoint and requeue itself), before the per-cycle limits: only a
// preemptible running job not signalled yet, that ran at least
// MinRunBeforePreempt since its last start and was preempted fewer than
// MaxPreemptPerDay times in 24 hours. A preempt that restarts the job at
// another size is held when that size could not be written (the job's
// resize cap, or a change below MinGPUChange): a restart at the same size
// would cost the job without the gain the plan priced.
func preempt(d planner.Decision, j *planner.Job, resized, preempted int, now time.Time, o Options) Verdict {
	v := Verdict{Send: d, Outcome: Held}
	if j == nil || j.State != planner.JobRunning {
		v.Guard = NotRunning
		return v
	}
	if ok, _ := planner.Preemptible(j); !ok {
		v.Guard = NotPreemptible
		return v
	}
	want := d.GPUsPerNode * max(1, d.NodeCount)
	switch {
	case !j.Signalled.IsZero():
		v.Guard = AlreadySignalled
	case !planner.RanLongEnough(j, now, o.MinRunBeforePreempt):
		v.Guard = MinRun
	case preempted >= o.MaxPreemptPerDay:
		v.Guard = PreemptCap
	case d.GPUsPerNode > 0 && want != j.GPUs() && resized >= o.MaxPerJob:
		v.Guard = JobCap
	case d.GPUsPerNode > 0 && want != j.GPUs() && abs(want-j.GPUs()) < o.MinGPUChange:
		v.Guard = HystGPUs
	default:
		v.Outcome, v.Write = "", true
		if d.GPUsPerNode > 0 && want == j.GPUs() {
			v.Send.Workers, v.Send.PS, v.Send.GPUsPerNode, v.Send.NodeCount = 0, 0, 0, 0 // the size it has
		}
	}
	return v
}

// one decides, for one decision (v.Send, set by the caller) and the job as
// the snapshot saw it, what is worth writing, before the per-cycle limit;
// resizes are the GPU-request changes already applied per job. It returns
// the job's admin comment as it read it (parsed once per decision: the
// write cap reads it too); zero when it did not need it.
func one(v *Verdict, j *planner.Job, resizes map[int64]int, now time.Time, o Options, cs *Comments) admin {
	switch {
	case v.Send.Action != planner.ActionUpdate:
		v.Outcome = Kept
		return admin{}
	case j == nil || j.State != planner.JobPending:
		v.Outcome, v.Guard = Held, NotPending
		return admin{}
	case isHeld(j):
		v.Outcome, v.Guard = Held, JobHeld
		return admin{}
	case optedOut(j):
		v.Outcome, v.Guard = Held, OptOut
		return admin{}
	}
	v.Write = true
	a := cs.parse(j)
	hysteresisWith(v, j, a, resizes[v.Send.JobID], now, o)
	return a
}

// admin is Strata's segment of a job's admin comment (ParseAdminComment:
// ok false when there is none or it does not parse).
type admin struct {
	w  Written
	ok bool
}

// parseAdmin parses the job's admin comment.
func parseAdmin(j *planner.Job) admin {
	w, ok := ParseAdminComment(j.AdminComment)
	return admin{w, ok}
}

// IsHeld reports a pending job Slurm holds: priority 0 (every hold, a
// BadConstraints or launch-failure hold) or a held state reason
// (JobHeldUser, JobHeldAdmin, JobHoldMaxRequeue, ...). A priority update on
// it fails with error 2042; sent with a release it would release the job.
func IsHeld(j planner.Job) bool { return isHeld(&j) }

// isHeld is IsHeld without the copy.
func isHeld(j *planner.Job) bool {
	return j.State == planner.JobPending &&
		(j.Priority == 0 || strings.HasPrefix(j.Reason, "JobHeld") || strings.HasPrefix(j.Reason, "JobHold"))
}

// OptedOut reports a job whose hint says rewrite=no or does not parse: the
// planner leaves such jobs alone, and so must every write.
func OptedOut(j planner.Job) bool { return optedOut(&j) }

// optedOut is OptedOut without the copy.
func optedOut(j *planner.Job) bool {
	if !strings.Contains(j.Comment, "strata:") && !containsFold(j.Comment, "strata:") {
		return false // no segment: nothing to opt out with (spares the parse)
	}
	h, ok, err := planner.ParseHints(j.Comment)
	return ok && (err != nil || h.NoRewrite)
}

// hysteresis trims a verdict against the thresholds: a GPU change smaller
// than MinGPUChange, or beyond the job's MaxPerJob resizes, and a priority
// (in the nice mode, a nice) change smaller than PriorityHysteresis are
// dropped (the job keeps its current value), a begin time is capped at
// MaxDefer and left alone while the one in effect is close enough, and a
// time limit is only ever lowered (never raised, never under
// planner.MinBoundLimit). What remains is
// written only when material: a new GPU shape, a new priority, a begin
// time to set, move or release, a partition to move to, a lower time
// limit, or a workers/PS count the admin comment does not show yet.
func hysteresis(v Verdict, j planner.Job, resized int, now time.Time, o Options) Verdict {
	hysteresisWith(&v, &j, parseAdmin(&j), resized, now, o)
	return v
}

// hysteresisWith is hysteresis in place, with the job's admin comment
// parsed (a).
func hysteresisWith(v *Verdict, j *planner.Job, a admin, resized int, now time.Time, o Options) {
	d := &v.Send
	cur := j.GPUs()
	gpuChange := false
	if d.GPUsPerNode > 0 {
		want := d.GPUsPerNode * max(1, d.NodeCount)
		shape := want != cur || max(1, d.NodeCount) != max(1, j.Nodes) ||
			(j.GPUsPerJob == 0 && d.GPUsPerNode != j.GPUsPerNode)
		// A PS job's servers written as tasks: a new task layout is a
		// resize, even at the same GPUs (and never below MinGPUChange).
		tasks := d.Tasks > 0 && (max(1, j.Tasks) != d.Tasks || j.TasksPerNode != d.TasksPerNode || j.GPUsPerJob > 0)
		switch {
		case j.GPUsPerTask > 0 || !shape && !tasks: // a per-task request keeps its GPUs
			d.GPUsPerNode, d.NodeCount = 0, 0
			d.Tasks, d.TasksPerNode, d.CPUsPerTask = 0, 0, 0
		case !tasks && abs(want-cur) < o.MinGPUChange:
			d.GPUsPerNode, d.NodeCount, d.Workers = 0, 0, cur
			v.Guard = HystGPUs
		case resized >= o.MaxPerJob:
			keepServers(d, j, cur)
			v.Guard = JobCap
		default:
			gpuChange = true
		}
	}
	prioChange := false
	if d.Priority > 0 && d.Priority != j.Priority {
		if abs(d.Priority-j.Priority) < o.PriorityHysteresis {
			d.Priority = 0
			if v.Guard == "" {
				v.Guard = HystPriority
			}
		} else {
			prioChange = true
		}
	} else {
		d.Priority = 0
	}
	switch { // the nice mode's nice, under the same hysteresis
	case d.Nice == nil:
	case niceChange(d, j, a, o):
		prioChange = true
	case sameNice(d, j, a):
		d.Nice = nil
	default:
		d.Nice = nil
		if v.Guard == "" {
			v.Guard = HystPriority
		}
	}
	beginChange := deferral(d, j, now, o)
	// A bound time limit only ever lowers the job's own, never under the
	// least a binding may write (planner.MinBoundLimit).
	limitChange := planner.LowersLimit(j.TimeLimit, d.TimeLimit)
	if !limitChange {
		d.TimeLimit = 0
	}
	commentChange := !a.ok || a.w.Workers != d.Workers || a.w.PS != d.PS
	partChange := planner.ChangesPartition(j.Partition, d.Partition)
	if !gpuChange && !prioChange && !beginChange && !commentChange && !partChange && !limitChange {
		v.Write, v.Outcome = false, Unchanged
		if v.Guard == JobCap {
			v.Outcome = Held
		}
	}
}

// deferral settles the begin time to write (d.NotBefore: zero = none, or
// release one Strata set) against the one in effect (j.DeferredUntil), and
// reports whether it changes.
func deferral(d *planner.Decision, j *planner.Job, now time.Time, o Options) bool {
	cur := j.DeferredUntil
	active := cur.After(now)
	want := d.NotBefore
	if want.IsZero() {
		return active // release a deferral Strata set
	}
	if lim := now.Add(o.MaxDefer); o.MaxDefer > 0 && want.After(lim) {
		want = lim
	}
	switch {
	case !active:
	case cur.After(want.Add(o.DeferSlack)):
		// held longer than the plan wants: move it earlier
	case cur.Before(want.Add(-o.DeferSlack)) && !cur.After(now.Add(o.DeferSlack)):
		// runs out soon while the plan still wants the job to wait: extend
	default:
		want = cur // close enough: leave it
	}
	d.NotBefore = want
	return !want.Equal(cur) || !active
}

func abs[T int | int64](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// keepServers trims a decision whose resize the per-job cap holds: the job
// keeps its GPUs and its tasks, and the admin comment tells its script the
// servers it has (its tasks beyond its GPUs), not the ones planned.
func keepServers(d *planner.Decision, j *planner.Job, cur int) {
	d.GPUsPerNode, d.NodeCount, d.Workers = 0, 0, cur
	if d.Tasks > 0 || d.PS > 0 {
		d.PS = max(0, j.Tasks-cur)
	}
	d.Tasks, d.TasksPerNode, d.CPUsPerTask = 0, 0, 0
}

// niceChange says whether the nice of the nice priority mode
// (Decision.Nice) is to be written: it differs from the job's by at least
// PriorityHysteresis, or the job still carries a priority Strata fixed in
// the absolute mode (its admin comment ranks it and records no nice),
// which slurmctld keeps, ignoring any nice, until the write releases it.
// a is the job's admin comment, parsed.
func niceChange(d *planner.Decision, j *planner.Job, a admin, o Options) bool {
	if d.Nice == nil {
		return false
	}
	if a.ok && a.w.AbsoluteWritten() {
		return true
	}
	return abs(*d.Nice-j.Nice) >= max(1, o.PriorityHysteresis)
}

// sameNice: the decision's nice is the job's already.
func sameNice(d *planner.Decision, j *planner.Job, a admin) bool {
	if a.ok && a.w.AbsoluteWritten() {
		return false
	}
	return d.Nice != nil && *d.Nice == j.Nice
}
