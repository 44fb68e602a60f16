package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
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
		Flags:  append(append(collectFlags(), databaseFlags()...), slurmMapperFlags()...),
		Action: runCollect,
	}
}

func collectFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagCollectSource, Required: true, EnvVars: []string{"STRATA_COLLECT_SOURCE"},
			Usage: "sample source: exporter, replay, dcgm (build tag dcgm) or nvml (build tag nvml)"},
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
		&cli.StringFlag{Name: flagSpoolFile, Value: defaultSpoolPath(), EnvVars: []string{"STRATA_SPOOL_FILE"},
			Usage: "local spool for batches while Postgres is unreachable"},
		&cli.Int64Flag{Name: flagSpoolMax, Value: 1 << 30, Usage: "spool size bound in bytes"},
		&cli.DurationFlag{Name: flagRollupEvery, Value: 5 * time.Minute, Usage: "refresh per-job energy rollups this often"},
		&cli.StringFlag{Name: flagCluster, EnvVars: []string{"STRATA_CLUSTER"}, Usage: "Slurm cluster name stored with jobs"},
	}
}

func defaultSpoolPath() string {
	if d := os.Getenv("STATE_DIRECTORY"); d != "" { // systemd StateDirectory=
		return d + "/collect-spool.jsonl"
	}
	return "/var/lib/strata/collect-spool.jsonl"
}

// gpuJobMapper says which jobs hold which GPUs at a moment. Implementations:
// the prolog/epilog mapping directory, a recorded schedule (replays), the
// exporter's hpc_job labels, and the Slurm queue's gres_detail (collect_slurm.go).
type gpuJobMapper interface {
	// Mapping returns the holdings at now; samples are the GPUs just read.
	Mapping(ctx context.Context, now time.Time, samples []dcgm.Sample) (gpuMapping, error)
}

// gpuMapping is one observation of GPU holdings.
type gpuMapping struct {
	GPUs []dcgm.JobGPU
	Kind dcgm.IndexKind // what GPUs[i].Index means
	// Jobs carries job metadata when the mapper knows it (schedule, Slurm).
	Jobs []planner.Job
	Ends map[int64]time.Time
}

type mappingDirMapper struct{ dir, host string }

func (m mappingDirMapper) Mapping(_ context.Context, _ time.Time, _ []dcgm.Sample) (gpuMapping, error) {
	g, err := dcgm.ReadMappingDir(m.dir, m.host)
	return gpuMapping{GPUs: g, Kind: dcgm.ByDeviceIndex}, err
}

type scheduleMapper struct{ sched dcgm.Schedule }

func (m scheduleMapper) Mapping(_ context.Context, now time.Time, _ []dcgm.Sample) (gpuMapping, error) {
	out := gpuMapping{GPUs: dcgm.FromSlurm(m.sched.Active(now)), Kind: dcgm.ByMinor, Ends: map[int64]time.Time{}}
	for _, j := range m.sched.Jobs {
		if now.Before(j.Start) {
			continue
		}
		pj := planner.Job{ID: j.Job, Name: j.Name, User: j.User, Account: j.Account, Partition: j.Partition,
			State: planner.JobRunning, SubmitTime: j.Submit, StartTime: j.Start}
		for _, a := range j.Allocs {
			pj.GPUsPerJob += len(a.Indices)
			pj.NodeList = append(pj.NodeList, a.Node)
		}
		if !now.Before(j.End) {
			pj.State, out.Ends[j.Job] = planner.JobCompleted, j.End
		}
		out.Jobs = append(out.Jobs, pj)
	}
	return out, nil
}

type exporterJobsMapper struct{ src *dcgm.ExporterSource }

func (m exporterJobsMapper) Mapping(context.Context, time.Time, []dcgm.Sample) (gpuMapping, error) {
	return gpuMapping{GPUs: m.src.Jobs(), Kind: dcgm.ByDeviceIndex}, nil
}

func runCollect(c *cli.Context) error {
	lg := logger(c).With().Str("cmd", "collect").Logger()
	src, mapper, paced, closeSrc, err := collectSource(c)
	if err != nil {
		return err
	}
	defer closeSrc()
	st, err := openDatabase(c, false)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.CheckSchema(c.Context); errors.Is(err, db.ErrSchemaBehind) || errors.Is(err, db.ErrSchemaAhead) {
		return exitError{code: 2, err: fmt.Errorf("collect: %w", err)}
	} else if err != nil {
		lg.Warn().Err(err).Msg("database not reachable at start; spooling until it is")
	}
	spool, err := db.OpenSpool(c.String(flagSpoolFile), c.Int64(flagSpoolMax), db.WithSpoolLogger(lg))
	if err != nil {
		return err
	}
	open, err := st.OpenAssignments(c.Context, "")
	if err != nil {
		lg.Warn().Err(err).Msg("cannot load open GPU assignments; starting with none")
	}
	co := &collector{src: src, mapper: mapper, paced: paced, store: st, in: db.NewIngester(st, spool),
		tracker: dcgm.NewTracker(open), log: lg, cluster: c.String(flagCluster),
		interval: c.Duration(flagCollectInterval), batchSamples: c.Int(flagBatchSamples),
		flushEvery: c.Duration(flagFlushEvery), rollupEvery: c.Duration(flagRollupEvery),
		jobsSent: map[int64]planner.JobState{}}
	return co.run(c.Context)
}

// collectSource builds the source (and the mapper that goes with it).
// paced is true when the source keeps its own time (replay).
func collectSource(c *cli.Context) (dcgm.Source, gpuJobMapper, bool, func(), error) {
	noop := func() {}
	mapper, err := newSlurmMapper(c)
	if err != nil {
		return nil, nil, false, noop, err
	}
	if d := c.String(flagMappingDir); d != "" && mapper == nil {
		h, err := hostName(c)
		if err != nil {
			return nil, nil, false, noop, err
		}
		mapper = mappingDirMapper{dir: d, host: h}
	}
	switch s := c.String(flagCollectSource); s {
	case "exporter":
		src, err := dcgm.NewExporterSource(c.StringSlice(flagExporterURL), nil)
		if err != nil {
			return nil, nil, false, noop, exitError{code: 2, err: fmt.Errorf("--%s exporter: %w", flagCollectSource, err)}
		}
		if mapper == nil {
			mapper = exporterJobsMapper{src: src}
		}
		return src, mapper, false, noop, nil
	case "replay":
		return replaySource(c, mapper)
	case "dcgm":
		src, err := dcgm.NewDCGMSource(dcgm.DCGMConfig{Address: c.String(flagDCGMAddress), Host: c.String(flagCollectHost)})
		if err != nil {
			return nil, nil, false, noop, err
		}
		return src, mapper, false, func() { src.Close() }, nil
	case "nvml":
		src, err := dcgm.NewNVMLSource(dcgm.NVMLConfig{Host: c.String(flagCollectHost)})
		if err != nil {
			return nil, nil, false, noop, err
		}
		return src, mapper, false, func() { src.Close() }, nil
	default:
		return nil, nil, false, noop, exitError{code: 2,
			err: fmt.Errorf("--%s %q: want exporter, replay, dcgm or nvml", flagCollectSource, s)}
	}
}

func replaySource(c *cli.Context, mapper gpuJobMapper) (dcgm.Source, gpuJobMapper, bool, func(), error) {
	noop := func() {}
	path := c.String(flagReplayFile)
	if path == "" {
		return nil, nil, false, noop, exitError{code: 2, err: fmt.Errorf("--%s replay needs --%s", flagCollectSource, flagReplayFile)}
	}
	cfg := dcgm.ReplayConfig{Speed: c.Float64(flagReplaySpeed)}
	if c.Bool(flagReplayToNow) {
		probe, err := dcgm.OpenReplay(path, dcgm.ReplayConfig{})
		if err != nil {
			return nil, nil, false, noop, err
		}
		cfg.Shift = time.Since(probe.LastTime()).Truncate(time.Second)
	}
	src, err := dcgm.OpenReplay(path, cfg)
	if err != nil {
		return nil, nil, false, noop, err
	}
	if p := c.String(flagSchedule); p != "" {
		sched, err := dcgm.ReadSchedule(p)
		if err != nil {
			return nil, nil, false, noop, err
		}
		mapper = scheduleMapper{sched: sched.Shifted(cfg.Shift)}
	}
	return src, mapper, true, noop, nil
}

func hostName(c *cli.Context) (string, error) {
	return dcgm.HostOrDefault(c.String(flagCollectHost))
}
