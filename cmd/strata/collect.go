package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/collect"
	"github.com/strata-hpc/strata/cmd/strata/internal/promserve"
)

const (
	flagCollectSource   = "source"
	flagCollectInterval = "interval"
	flagExporterURL     = "exporter-url"
	flagReplayFile      = "replay-file"
	flagReplaySpeed     = "replay-speed"
	flagReplayToNow     = "replay-to-now"
	flagSchedule        = "schedule"
	flagMappingDir      = "mapping-dir"
	flagCollectHost     = "host"
	flagDCGMAddress     = "dcgm-address"
	flagBatchSamples    = "batch-samples"
	flagFlushEvery      = "flush-every"
	flagSpoolFile       = "spool-file"
	flagSpoolMax        = "spool-max-bytes"
	flagRollupEvery     = "rollup-every"
	flagCluster         = "cluster"
	flagSlurmMapping    = "slurm-mapping"
	// flagCollectMetrics is --metrics-listen of collect; its first name
	// (the configuration key, `[collect] metrics-listen`) differs from the
	// daemon's metrics-listen so that one configuration file can serve both.
	flagCollectMetrics = "collect-metrics-listen"
)

func collectCommand() *cli.Command {
	return &cli.Command{
		Name:  "collect",
		Usage: "sample GPUs (DCGM, NVML, dcgm-exporter or a replay) into Postgres, with GPU→job attribution",
		Description: "Every --interval, reads one sample per GPU from --source, works out which Slurm job\n" +
			"holds each GPU (--slurm-mapping, --mapping-dir, --schedule, or the exporter's hpc_job labels), and writes\n" +
			"samples and assignments in batches with COPY. While Postgres is unreachable batches go to\n" +
			"a bounded, fsynced --spool-file and are replayed in order when it returns. Per-job energy\n" +
			"rollups are refreshed every --rollup-every and at exit.\n\n" +
			"Example (demo data): strata collect --source replay --replay-file dcgm/testdata/recording.jsonl \\\n" +
			"    --schedule dcgm/testdata/schedule.json",
		Flags:  append(append(collectFlags(), cliflags.Database()...), slurmMapperFlags()...),
		Action: runCollect,
	}
}

func collectFlags() []cli.Flag {
	return []cli.Flag{
		// Not Required: urfave/cli checks required flags before the
		// configuration file is applied, so `source` in the file would not count.
		&cli.StringFlag{Name: flagCollectSource, EnvVars: []string{"STRATA_COLLECT_SOURCE"},
			Usage: "sample source (required; flag, STRATA_COLLECT_SOURCE or the configuration file): exporter, replay, dcgm (build tag dcgm) or nvml (build tag nvml)"},
		&cli.DurationFlag{Name: flagCollectInterval, Value: 10 * time.Second, Usage: "sampling interval (live sources)"},
		&cli.StringSliceFlag{Name: flagExporterURL, EnvVars: []string{"STRATA_EXPORTER_URL"},
			Usage: "dcgm-exporter endpoint(s), e.g. http://gpu1:9400/metrics (repeat or comma-separate)"},
		&cli.StringFlag{Name: flagReplayFile, Usage: "recording to replay (JSON lines, or CSV when named *.csv)"},
		&cli.Float64Flag{Name: flagReplaySpeed, Usage: "replay speed factor (1 = real time; 0 = as fast as possible)"},
		&cli.BoolFlag{Name: flagReplayToNow, Usage: "shift the recording (and --schedule) so that it ends now"},
		&cli.StringFlag{Name: flagSchedule, Usage: "recorded Slurm allocations (JSON) for replays: GPU→job by GRES index"},
		&cli.StringFlag{Name: flagMappingDir, EnvVars: []string{"STRATA_MAPPING_DIR"},
			Usage: "prolog/epilog GPU→job mapping directory in dcgm-exporter's format (files <gpu> holding job ids)"},
		&cli.StringFlag{Name: flagCollectHost, Usage: "host name recorded for local sources (default: this host)"},
		&cli.StringFlag{Name: flagDCGMAddress, Usage: "nv-hostengine address for --source dcgm (empty: embedded)"},
		&cli.IntFlag{Name: flagBatchSamples, Value: 10000, Usage: "write a batch once it holds this many samples"},
		&cli.DurationFlag{Name: flagFlushEvery, Value: 30 * time.Second, Usage: "write a batch at least this often"},
		&cli.StringFlag{Name: flagSpoolFile, EnvVars: []string{"STRATA_SPOOL_FILE"},
			Usage: "local spool for batches while Postgres is unreachable, one collector's (default: " +
				"$STATE_DIRECTORY or /var/lib/strata, collect-spool-<cluster>-<source>.jsonl)"},
		&cli.Int64Flag{Name: flagSpoolMax, Value: 1 << 30, Usage: "spool size bound in bytes"},
		&cli.DurationFlag{Name: flagRollupEvery, Value: 5 * time.Minute, Usage: "refresh per-job energy rollups this often"},
		&cli.StringFlag{Name: flagCluster, EnvVars: []string{"STRATA_CLUSTER"}, Usage: "Slurm cluster name stored with jobs"},
		&cli.StringFlag{Name: flagCollectMetrics, Aliases: []string{"metrics-listen"}, Value: "127.0.0.1:9465",
			EnvVars: cliflags.EnvOf(flagCollectMetrics),
			Usage:   "serve the collector's Prometheus /metrics on this address ('' = off; the daemon's is 9464)"},
	}
}

// defaultSpoolPath is --spool-file when none is given: the state directory
// (systemd's StateDirectory=, else /var/lib/strata) and a name that holds
// the instance, its cluster and source, so that the collectors of two
// clusters, or of two sources, on one host never share a spool (a spool is
// one process's: a second collector on it stops with exit status 2).
func defaultSpoolPath(cluster, source string) string {
	dir := "/var/lib/strata"
	if d := os.Getenv("STATE_DIRECTORY"); d != "" { // systemd StateDirectory=
		dir = d
	}
	name := "collect-spool"
	for _, part := range []string{cluster, source} {
		if part = spoolNamePart(part); part != "" {
			name += "-" + part
		}
	}
	return filepath.Join(dir, name+".jsonl")
}

// warnOldSpool warns when the default spool of strata before the instance
// was in its name still holds batches: they are replayed only by a
// collector told --spool-file with that path.
func warnOldSpool(lg zerolog.Logger, spool string) {
	old := filepath.Join(filepath.Dir(spool), "collect-spool.jsonl")
	segs, _ := filepath.Glob(old + ".[0-9]*")
	if st, err := os.Stat(old); (err == nil && st.Size() > 0) || len(segs) > 0 {
		lg.Warn().Str("old_spool", old).Str("spool", spool).
			Msg("an old default spool holds batches: replay them with strata collect --spool-file " + old)
	}
}

// spoolNamePart keeps the letters, digits, '.', '_' and '-' of s (a
// cluster name is the admin's), the others becoming '_'.
func spoolNamePart(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-", r)) {
			return r
		}
		return '_'
	}, strings.TrimLeft(s, "."))
}

// slurmMapperFlags are collect's flags for the Slurm mapping.
func slurmMapperFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: flagSlurmMapping, EnvVars: []string{"STRATA_SLURM_MAPPING"},
			Usage: "attribute GPUs to jobs from slurmrestd (running jobs' GRES indices); needs --slurm-url and a token"},
	}, cliflags.Slurm()...)
}

// collectConfig reads the collect flags of c.
func collectConfig(c *cli.Context) collect.Config {
	spoolFile := c.String(flagSpoolFile)
	if spoolFile == "" {
		spoolFile = defaultSpoolPath(c.String(flagCluster), c.String(flagCollectSource))
	}
	return collect.Config{
		Source: c.String(flagCollectSource), Interval: c.Duration(flagCollectInterval),
		ExporterURLs: c.StringSlice(flagExporterURL),
		ReplayFile:   c.String(flagReplayFile), ReplaySpeed: c.Float64(flagReplaySpeed), ReplayToNow: c.Bool(flagReplayToNow),
		Schedule: c.String(flagSchedule), MappingDir: c.String(flagMappingDir),
		Host: c.String(flagCollectHost), DCGMAddress: c.String(flagDCGMAddress),
		BatchSamples: c.Int(flagBatchSamples), FlushEvery: c.Duration(flagFlushEvery),
		SpoolFile: spoolFile, SpoolMax: c.Int64(flagSpoolMax),
		RollupEvery: c.Duration(flagRollupEvery), Cluster: c.String(flagCluster),
	}
}

// runCollect wires the collector: slurmrestd (with --slurm-mapping), the
// sample source, Postgres.
func runCollect(c *cli.Context) error {
	lg := logger(c).With().Str("cmd", "collect").Logger()
	if c.String(flagCollectSource) == "" {
		return usageError(fmt.Errorf("--%s is required: exporter, replay, dcgm or nvml (a flag, STRATA_COLLECT_SOURCE, or source = \"...\" in the configuration file)", flagCollectSource))
	}
	cfg := collectConfig(c)
	if c.String(flagSpoolFile) == "" {
		warnOldSpool(lg, cfg.SpoolFile)
	}
	// Taken first and kept: a second collector on it stops at once (exit 2).
	spool, err := collect.TakeSpool(cfg, lg)
	if err != nil {
		return err
	}
	defer spool.Close() // Run closes it too; this covers the errors before it
	if c.Bool(flagSlurmMapping) {
		cl, err := cliflags.ConnectSlurm(c, cliflags.WithoutPools)
		if err != nil {
			return err
		}
		cfg.SlurmSnapshot = cl.Snapshot
	}
	in, err := collect.OpenInput(cfg)
	if err != nil {
		return err
	}
	defer in.Close()
	var ln net.Listener
	if addr := c.String(flagCollectMetrics); addr != "" {
		// Listen before sampling starts, so a bad address fails at once.
		if ln, err = net.Listen("tcp", addr); err != nil {
			return usageError(fmt.Errorf("--metrics-listen: %w", err))
		}
		cfg.Metrics = collect.NewMetrics()
		cfg.Metrics.SetBuildInfo(version, commit)
	}
	st, err := cliflags.OpenDatabase(c, false)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	defer st.Close()
	var reg *prometheus.Registry
	if cfg.Metrics != nil {
		reg = cfg.Metrics.Registry()
	}
	return promserve.RunWith(c.Context, ln, reg, lg, func(ctx context.Context) error {
		return collect.Run(ctx, cfg, in, st, spool, lg)
	})
}
