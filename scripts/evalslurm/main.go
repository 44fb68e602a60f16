// Command evalslurm checks the simulator's Slurm model against the real
// Slurm (`make evaluate-slurm`, driven by scripts/evaluate-slurm.sh): it
// replays a trace on the Slurm test cluster at a reduced time scale, once
// with Slurm alone and once with `strata run --enforce --policy smd` in the
// loop, and compares each replay with `strata simulate --scheduler slurm`
// (the sim package) run on the same scaled jobs with the same scaled
// slurmctld settings.
//
//	evalslurm prepare -trace T.csv -scaling S.csv -jobs N -scale F -dir DIR
//	    the scaled jobs (DIR/jobs.json), the scaled trace the simulator reads
//	    (DIR/trace-scaled.csv, with the exact time limits submitted), the
//	    slurm.conf lines (DIR/slurm.conf.extra), Strata's configuration
//	    (DIR/strata.toml) and the settings (DIR/settings.json).
//	evalslurm replay -dir DIR -policy slurm|smd [-strata BIN -database-url URL]
//	    submits the jobs at their scaled times to the test cluster named by
//	    SLURM_TEST_DIR, records when each started and ended and on how many
//	    GPUs (DIR/replay-POLICY.json); with smd, Strata runs beside it.
//	evalslurm compare -dir DIR -json FILE -doc FILE
//	    simulates the same jobs, compares (average JCT, Spearman rank
//	    correlation of start times, makespan, GPU counts) and writes the JSON
//	    and the generated table of the doc section.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "prepare":
		err = cmdPrepare(os.Args[2:])
	case "replay":
		err = cmdReplay(ctx, os.Args[2:])
	case "compare":
		err = cmdCompare(ctx, os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "evalslurm %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: evalslurm prepare|replay|compare [flags] (see the package comment; -h for flags)")
	os.Exit(2)
}

// logf prints one progress line on stderr with the wall-clock time.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%s] evalslurm: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
