package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/sim"
	"github.com/strata-hpc/strata/slurm"
	"github.com/strata-hpc/strata/slurm/slurmtest"
)

// On the accounting test bed: jobs of alice and bob, with and without
// hints, in the bed's partitions, run and reach slurmdbd; the site
// simulation reads them back with their users, GPUs, partitions and
// hints, and reports both users and every partition used with waits ≥ 0.
func TestIntegrationSiteSimulationFromSlurmdbd(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs the Slurm test cluster with accounting")
	}
	bed := slurmtest.ConnectAccounting(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := slurm.New(ctx, bed.Config, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string // the bed's partitions with GPU nodes (gpu; gpua and gpub with 2 nodes)
	nodeGPUs := 0
	for _, p := range snap.Partitions {
		if p.TotalGPUs > 0 {
			parts = append(parts, p.Name)
		}
	}
	for _, n := range snap.Nodes {
		nodeGPUs = max(nodeGPUs, n.GPUs)
	}
	if len(parts) == 0 || nodeGPUs < 2 {
		t.Fatalf("the bed has no GPU partition: %+v", snap.Partitions)
	}
	slices.Sort(parts)
	from := time.Now().Add(-5 * time.Second) // slurmctld's clock may run a little behind
	type sub struct {
		user, part, hint string
		gpus             int
	}
	hint := fmt.Sprintf("strata: model=resnet50 batch=64 iters=100 gpus=1-%d", nodeGPUs)
	var subs []sub
	for i, u := range []string{"alice", "bob"} {
		for k := range 3 {
			s := sub{user: u, part: parts[(i+k)%len(parts)], gpus: []int{1, nodeGPUs, 2}[k]}
			if k != 1 {
				s.hint = hint
			}
			subs = append(subs, s)
		}
	}
	want := map[string]sub{}
	for k, s := range subs {
		args := []string{"-J", "site-" + strconv.Itoa(k), "--chdir=/tmp", "-o", "/dev/null", "-p", s.part,
			"--gres=gpu:" + strconv.Itoa(s.gpus), "-t", "2", "--wrap=sleep " + strconv.Itoa(2+k%3)}
		if s.hint != "" {
			args = append(args, "--comment="+s.hint)
		}
		want[strconv.FormatInt(bed.SbatchAs(t, s.user, args...), 10)] = s
	}
	// Wait until slurmdbd has every job as ended. slurmctld sends job
	// records to slurmdbd asynchronously, and the daemon's outage test
	// stops slurmdbd for a few seconds meanwhile (make test shares the bed):
	// errors are retried until the deadline.
	for {
		js, err := c.EndedJobs(ctx, "", from, time.Now().Add(time.Minute))
		if err != nil && ctx.Err() != nil {
			t.Fatal(err)
		}
		n := 0
		for _, j := range js {
			if _, ok := want[strconv.FormatInt(j.ID, 10)]; ok {
				n++
			}
		}
		if n == len(want) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%d of %d jobs reached slurmdbd", n, len(want))
		}
		time.Sleep(time.Second)
	}
	o := SiteOptions{Options: siteTestOptions(), From: from, To: time.Now().Add(time.Minute), Prior: 90 * 24 * time.Hour}
	o.WriteTrace = filepath.Join(t.TempDir(), "site.csv")
	o.Policy = "smd"
	var out bytes.Buffer
	for {
		out.Reset()
		err := RunSite(ctx, c, o, Output{Out: &out, Progress: io.Discard}, zerolog.Nop())
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal(err)
		}
		t.Logf("RunSite: %v (retried: slurmdbd may be stopped by another test)", err)
		time.Sleep(2 * time.Second)
	}

	// The trace: each of our jobs with its user, GPUs and hint.
	f, err := os.Open(o.WriteTrace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := sim.ReadTrace(f, sim.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, j := range tr.Jobs {
		s, ok := want[j.ID]
		if !ok {
			continue // another test's job on the shared bed
		}
		seen++
		if j.User != s.user || j.GPUs != s.gpus || j.Hint != s.hint || j.Duration < 1 || j.TimeLimit != 120 {
			t.Errorf("job %s in the trace: %+v; submitted %+v (limit 2 min)", j.ID, j, s)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of our %d jobs in the trace", seen, len(want))
	}

	// The report: both users and every partition used, sensible numbers.
	var rep SiteReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if rep.Jobs < len(want) || rep.Hinted < 4 || rep.Predictor != sim.PredictorHistory || len(rep.Policies) != 1 {
		t.Fatalf("report: %d jobs, %d hinted, predictor %s, %d policies; want ≥ %d, ≥ 4, history, 1",
			rep.Jobs, rep.Hinted, rep.Predictor, len(rep.Policies), len(want))
	}
	p := rep.Policies[0]
	groups := map[string]SiteGroup{}
	for _, g := range p.Users {
		groups["user "+g.Name] = g
	}
	for _, g := range p.Partitions {
		groups["partition "+g.Name] = g
	}
	for _, s := range subs {
		for _, k := range []string{"user " + s.user, "partition " + s.part} {
			if g, ok := groups[k]; !ok || g.Jobs < 1 {
				t.Errorf("%s: not in the report (%+v)", k, groups)
			}
		}
	}
	for k, g := range groups {
		if g.WaitHistory < 0 || g.WaitSlurm < 0 || g.WaitPolicy < 0 || g.JCTHistory < g.WaitHistory+1 ||
			g.JCTSlurm < g.WaitSlurm+1 || g.JCTPolicy < g.WaitPolicy+1 {
			t.Errorf("%s: implausible means %+v", k, g)
		}
	}
	if p.All.Jobs+p.Unfinished != rep.Jobs {
		t.Errorf("%d jobs counted + %d unfinished, %d simulated", p.All.Jobs, p.Unfinished, rep.Jobs)
	}
}
