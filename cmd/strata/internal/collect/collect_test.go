package collect

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
)

const (
	recording = "../../../../dcgm/testdata/recording.jsonl"
	schedule  = "../../../../dcgm/testdata/schedule.json"
)

// OpenInput picks the source and the GPU→job mapper as the flags say; a
// configuration that cannot work is a ConfigError (exit status 2).
func TestOpenInput(t *testing.T) {
	snap := func(context.Context) (*planner.Snapshot, error) { return &planner.Snapshot{}, nil }
	tests := []struct {
		name   string
		cfg    Config
		mapper string // the mapper's type, "<nil>" for none
		paced  bool
		err    string // "" = no error; else the message of a ConfigError
	}{
		{"replay with schedule", Config{Source: "replay", ReplayFile: recording, Schedule: schedule}, "collect.scheduleMapper", true, ""},
		{"schedule wins over slurm", Config{Source: "replay", ReplayFile: recording, Schedule: schedule, SlurmSnapshot: snap},
			"collect.scheduleMapper", true, ""},
		{"replay with slurm", Config{Source: "replay", ReplayFile: recording, SlurmSnapshot: snap}, "*collect.slurmMapper", true, ""},
		{"replay, samples only", Config{Source: "replay", ReplayFile: recording}, "<nil>", true, ""},
		{"exporter labels", Config{Source: "exporter", ExporterURLs: []string{"http://gpu1:9400/metrics"}}, "collect.exporterJobsMapper", false, ""},
		{"mapping dir over exporter labels", Config{Source: "exporter", ExporterURLs: []string{"http://gpu1:9400/metrics"}, MappingDir: t.TempDir(), Host: "gpu1"},
			"collect.mappingDirMapper", false, ""},
		{"slurm over mapping dir", Config{Source: "exporter", ExporterURLs: []string{"http://gpu1:9400/metrics"}, MappingDir: t.TempDir(), SlurmSnapshot: snap},
			"*collect.slurmMapper", false, ""},
		{"unknown source", Config{Source: "bogus"}, "", false, `--source "bogus": want exporter, replay, dcgm or nvml`},
		{"replay without recording", Config{Source: "replay"}, "", false, "--source replay needs --replay-file"},
		{"exporter without targets", Config{Source: "exporter"}, "", false, "--source exporter: exporter source: no targets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := OpenInput(tt.cfg)
			if tt.err != "" {
				var ce *ConfigError
				if !errors.As(err, &ce) || ce.ExitCode() != 2 || err.Error() != tt.err {
					t.Fatalf("err = %v (%T), want ConfigError %q", err, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if got := fmt.Sprintf("%T", in.mapper); got != tt.mapper || in.paced != tt.paced {
				t.Errorf("mapper %s, paced %v; want %s, %v", got, in.paced, tt.mapper, tt.paced)
			}
		})
	}
}

// TakeSpool keeps the spool until Run ends: a collector that let it
// go between its start-up check and its run lost it to one started a
// moment later, and was the one refused (make test saw it, in
// TestTwoCollectorsOneSpool). While it is held, another taker is refused
// with a ConfigError (exit 2) naming the spool; once closed, it is free.
func TestTakeSpoolHoldsItUntilClosed(t *testing.T) {
	cfg := Config{SpoolFile: filepath.Join(t.TempDir(), "sp.jsonl")}
	held, err := TakeSpool(cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	_, err = TakeSpool(cfg, zerolog.Nop())
	var ce *ConfigError
	if !errors.As(err, &ce) || !errors.Is(err, db.ErrSpoolLocked) || !strings.Contains(err.Error(), cfg.SpoolFile) {
		t.Fatalf("second taker while held: %v, want a ConfigError naming %s", err, cfg.SpoolFile)
	}
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := TakeSpool(cfg, zerolog.Nop())
	if err != nil {
		t.Fatalf("after close: %v", err)
	}
	again.Close()
}

// takeAndRun is what `strata collect` does: take the spool, then Run.
func takeAndRun(ctx context.Context, cfg Config, in *Input, st *db.Store, log zerolog.Logger) error {
	spool, err := TakeSpool(cfg, log)
	if err != nil {
		return err
	}
	return Run(ctx, cfg, in, st, spool, log)
}
