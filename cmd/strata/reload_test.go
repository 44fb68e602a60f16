package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
)

// TestReloadTakesTheNewFileButKeepsPinnedKeys runs the real flag, env and
// file plumbing: start with a file, change it twice, reload each time.
func TestReloadTakesTheNewFileButKeepsPinnedKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "strata.toml")
	write := func(body string) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("policy = \"smd\"\ninterval = \"30s\"\nonly-partitions = [\"a\"]\nmax-rewrites-per-job = 5\n")
	t.Setenv("STRATA_MAX_REWRITES_PER_CYCLE", "7") // pinned by the environment
	type view struct {
		Policy     string
		Interval   time.Duration
		Parts      []string
		PerCycle   int
		PerJob     int
		Enforce    bool
		NamePrefix string
		Energy     float64
		Limits     int
	}
	see := func(o daemon.Options) view {
		return view{o.Policy, o.Interval, o.Scope.Partitions, o.Guard.MaxPerCycle, o.Guard.MaxPerJob, o.Enforce,
			o.Scope.NamePrefix, o.Planner.EnergyWeight, len(o.Planner.Limits)}
	}
	var got []view
	app := newApp(&bytes.Buffer{}, &bytes.Buffer{})
	app.Commands = config.Wrap([]*cli.Command{{Name: "run", Flags: runFlags(), Action: func(c *cli.Context) error {
		o, err := runOptionsFrom(c, config.FileFrom(c.Context))
		if err != nil {
			return err
		}
		got = append(got, see(o))
		reload := newReloader(c)
		write("policy = \"fifo\"\ninterval = \"45s\"\nonly-partitions = [\"b\", \"c\"]\nmax-rewrites-per-cycle = 99\nenforce = true\n" +
			"[planner]\nenergy-weight = 0.5\nlimits = []\n")
		for _, body := range []string{"", "policy = \"tiresias\"\nonly-partitions = [\"d\"]\n"} {
			if body != "" {
				write(body)
			}
			o, err := reload()
			if err != nil {
				return err
			}
			got = append(got, see(o))
		}
		return nil
	}}})
	if err := app.Run([]string{"strata", "--config", path, "run", "--only-job-name-prefix", "x-"}); err != nil {
		t.Fatal(err)
	}
	want := []view{
		{"smd", 30 * time.Second, []string{"a"}, 7, 5, false, "x-", 0, 1},
		// max-rewrites-per-job left the file: back to its default (3); the
		// environment's per-cycle limit and the flag's prefix stay.
		// The [planner] section is re-read too (caps switched off).
		{"fifo", 45 * time.Second, []string{"b", "c"}, 7, 3, true, "x-", 0.5, 0},
		// keys no longer in the file return to their defaults
		{"tiresias", time.Minute, []string{"d"}, 7, 3, false, "x-", 0, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("options at start and after each reload (-want +got):\n%s", diff)
	}
}
