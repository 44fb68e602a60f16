package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
)

// `strata report power` prints the advice of package report over the
// source, and --replay replays a file without opening the database.
func TestReportPowerCommand(t *testing.T) {
	now := time.Now()
	src := &reporttest.Source{
		Activity: []db.NodeBusy{{Host: "n1", Bucket: now.Truncate(10 * time.Minute), BusyGPUs: 2}},
		Inventory: []db.NodeState{{Host: "n1", GPUs: 4, LastSeen: now, LastBusy: now, Busy: true},
			{Host: "n2", GPUs: 4, LastSeen: now}},
	}
	out, opened, err := cliRun(src, "report", "power", "-P", "-n", "-o", "Node,Action", "--buffer", "1", "--timezone", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("n1|busy\nn2|keep\n", out); d != "" || opened != 1 {
		t.Errorf("advice (opened %d; -want +got):\n%s", opened, d)
	}

	file := filepath.Join(t.TempDir(), "nodes.csv")
	csv := "time_s,time,busy_nodes,total_nodes\n0,2026-11-20 00:00:00,2,8\n600,2026-11-20 00:10:00,1,8\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	out, opened, err = cliRun(src, "report", "power", "--replay", file, "-P", "-n", "-o", "Series,Nodes,MeanBusy",
		"--timezone", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("nodes.csv|8|1.5\n", out); d != "" || opened != 0 {
		t.Errorf("replay (opened %d; -want +got):\n%s", opened, d)
	}
}

func TestReportPowerRefusesBadInput(t *testing.T) {
	for _, args := range []string{
		"report power --forecast oracle",
		"report power -S 2017-12-01",
		"report power --preset mars",
		"report power --rule greedy",
		"report power --replay /nonexistent/nodes.csv --timezone Mars/Base",
		"report power --replay /nonexistent/nodes.csv",
	} {
		t.Run(args, func(t *testing.T) {
			_, opened, err := cliRun(reporttest.Demo(), strings.Fields(args)...)
			if code := exitCodeOf(err); code != 2 || opened != 0 {
				t.Errorf("err = %v (exit %d), source opened %d times; want exit status 2 before opening", err, code, opened)
			}
		})
	}
}

// --apply connects to Slurm only when there is something to change, and a
// Slurm connection without a URL is a usage error.
func TestReportPowerApplyNeedsSlurm(t *testing.T) {
	now := time.Now()
	src := &reporttest.Source{Inventory: []db.NodeState{
		{Host: "n1", GPUs: 4, LastSeen: now, LastBusy: now, Busy: true},
		{Host: "n2", GPUs: 4, LastSeen: now, LastBusy: now.Add(-3 * time.Hour)},
	}}
	args := []string{"report", "power", "--apply", "--slurm-url", "", "--slurm-socket", "", "--timezone", "UTC", "-P", "--min-decrease", "1"}
	if _, _, err := cliRun(src, append(args, "--buffer", "1")...); err != nil {
		t.Errorf("nothing to apply: %v, want no Slurm connection and no error", err)
	}
	_, opened, err := cliRun(src, append(args, "--buffer", "0")...)
	if code := exitCodeOf(err); code != 2 || opened != 1 {
		t.Errorf("n2 to power down, no Slurm URL: err = %v (exit %d, opened %d), want exit status 2", err, code, opened)
	}
}
