package slurm_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// sprioRow is one job's row of sprio: the priority and its factors.
type sprioRow struct{ prio, age, fairshare, jobSize, partition, qos, nice, tres int64 }

func sprio(t *testing.T, cl *slurmtest.Cluster, id int64) sprioRow {
	t.Helper()
	var out string
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		// sprio lists a job once slurmctld has computed its factors
		out = cl.MustExec(t, "sprio", "-h", "-j", strconv.FormatInt(id, 10), "-o", "%Y %A %F %J %P %Q %N %T")
		if strings.TrimSpace(out) != "" || time.Now().After(deadline) {
			break
		}
	}
	f := strings.Fields(out)
	if len(f) < 7 {
		show, _ := cl.Exec("scontrol", "show", "job", strconv.FormatInt(id, 10))
		t.Fatalf("sprio of job %d: %q; the job:\n%s", id, out, show)
	}
	n := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("sprio of job %d: %q: %v", id, out, err)
		}
		return v
	}
	var tres int64
	f = append(f, "")                             // a fixed priority shows no TRES column
	for _, kv := range strings.Split(f[7], ",") { // gres/gpu=500
		if _, v, ok := strings.Cut(kv, "="); ok {
			x, _ := strconv.ParseFloat(v, 64)
			tres += int64(x)
		}
	}
	return sprioRow{n(f[0]), n(f[1]), n(f[2]), n(f[3]), n(f[4]), n(f[5]), n(f[6]), tres}
}

// In the nice mode (the default) the site's policy stays in force: two
// waiting 4-GPU jobs of alice, L with QOS high and S with QOS normal, which
// Strata ranks S first (S at −band, L at +band), keep L ahead in Slurm's
// order, and sprio of each still shows its QOS and fairshare factors, its
// priority their sum less Strata's nice. Before it, the absolute mode's
// writes (today's 100010 for S, 100000 for L) put S ahead and fix both
// priorities; the nice-mode write releases them (issue 31).
func TestIntegrationAccountingNiceKeepsTheSitePolicy(t *testing.T) {
	cl := accounting(t)
	c := clientAs(t, cl, cl.Config.User) // root: writes the admin comment that records the mode
	ctx := context.Background()
	// A blocker holds node1's GPUs, so S and L wait there (eligible: sprio lists them).
	blocker := cl.SbatchAs(t, "bob", "-J", tag(t), "--chdir=/tmp", "-o", "/dev/null", "-w", "node1", "--gres=gpu:4", "--wrap=sleep 300")
	// S and L must find node1 taken, or one of them starts and sprio no
	// longer lists it (seen under make test's load).
	if st := cl.WaitState(t, blocker, "RUNNING", 60*time.Second); st != "RUNNING" {
		t.Fatalf("blocker %d is %s, want RUNNING", blocker, st)
	}
	sub := func(qos, limit string) int64 {
		return cl.SbatchAs(t, "alice", "-J", tag(t), "--chdir=/tmp", "-o", "/dev/null", "-w", "node1", "--gres=gpu:4",
			"--qos="+qos, "-t", limit, "--wrap=sleep 30")
	}
	l, s := sub("high", "120"), sub("normal", "5")
	apply := func(ds ...planner.Decision) {
		t.Helper()
		rep, err := c.Apply(ctx, ds, slurm.ApplyOptions{Cycle: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Outcome != "applied" {
				t.Fatalf("job %d: %s (%s)", r.JobID, r.Outcome, r.Detail)
			}
		}
	}
	upd := func(id int64, rank int) planner.Decision {
		return planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: 4, Rank: rank}
	}

	// The absolute mode, as before: Strata's order replaces the site's.
	ds, dl := upd(s, 1), upd(l, 2)
	ds.Priority, dl.Priority = 100010, 100000
	apply(ds, dl)
	if ps, pl := sprio(t, cl, s), sprio(t, cl, l); ps.prio <= pl.prio || pl.prio != 100000 {
		t.Errorf("absolute: S %d, L %d: want S's 100010 ahead of L's fixed 100000", ps.prio, pl.prio)
	}

	// The nice mode: S at −band, L at +band; the absolute priorities released.
	band := planner.DefaultNiceBand
	ns, nl := -band, band
	ds, dl = upd(s, 1), upd(l, 2)
	ds.Nice, dl.Nice = &ns, &nl
	apply(ds, dl)
	ps, pl := sprio(t, cl, s), sprio(t, cl, l)
	if pl.prio <= ps.prio {
		t.Errorf("nice: L (QOS high) %d is behind S (QOS normal) %d: %+v %+v", pl.prio, ps.prio, pl, ps)
	}
	for _, tc := range []struct {
		name string
		row  sprioRow
		qos  int64
		nice int64
	}{{"S", ps, 0, ns}, {"L", pl, 10000, nl}} {
		r := tc.row
		if r.qos != tc.qos || r.nice != tc.nice || r.fairshare <= 0 || r.partition <= 0 {
			t.Errorf("%s: sprio %+v: want QOS %d, NICE %d, fairshare and partition > 0", tc.name, r, tc.qos, tc.nice)
		}
		// sprio truncates each factor: the sum may miss the priority by a few.
		if sum := r.age + r.fairshare + r.jobSize + r.partition + r.qos + r.tres - r.nice; sum < r.prio-5 || sum > r.prio+5 {
			t.Errorf("%s: priority %d is not its factors less the nice (%d): %+v", tc.name, r.prio, sum, r)
		}
		j, err := c.Job(ctx, map[string]int64{"S": s, "L": l}[tc.name])
		if err != nil {
			t.Fatal(err)
		}
		if j.Nice != tc.nice || j.SitePriority != j.Priority+tc.nice {
			t.Errorf("%s read back: nice %d site priority %d (priority %d), want nice %d and the priority plus it", tc.name, j.Nice, j.SitePriority, j.Priority, tc.nice)
		}
	}
}
