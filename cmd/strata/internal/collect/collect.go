package collect

import (
	"context"
	"errors"
	"fmt"
	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// Config is what `strata collect` is told: the sample source, how GPUs
// are attributed to jobs, and how samples are batched, spooled and rolled up.
type Config struct {
	// Source is exporter, replay, dcgm (build tag dcgm) or nvml (build tag nvml).
	Source string
	// Interval is the sampling interval of live sources.
	Interval time.Duration
	// ExporterURLs are the dcgm-exporter endpoints (Source exporter).
	ExporterURLs []string
	// ReplayFile is the recording to replay (Source replay), at ReplaySpeed
	// (1: real time, 0: as fast as possible), shifted to end now with
	// ReplayToNow.
	ReplayFile  string
	ReplaySpeed float64
	ReplayToNow bool
	// Schedule is a recorded Slurm allocation file that maps the GPUs of a replay.
	Schedule string
	// MappingDir is a prolog/epilog GPU→job mapping directory.
	MappingDir string
	// Host is the host name recorded for local sources ("": this host).
	Host string
	// DCGMAddress is the nv-hostengine address of Source dcgm ("": embedded).
	DCGMAddress string
	// BatchSamples and FlushEvery: a batch is written once it holds this
	// many samples, and at least this often.
	BatchSamples int
	FlushEvery   time.Duration
	// SpoolFile holds batches while Postgres is unreachable, up to SpoolMax bytes.
	SpoolFile string
	SpoolMax  int64
	// RollupEvery is how often per-job energy rollups are refreshed.
	RollupEvery time.Duration
	// Cluster is the Slurm cluster name stored with jobs.
	Cluster string
	// SlurmSnapshot, when set, attributes GPUs to the running jobs of
	// Slurm's queue (a slurm.Client's Snapshot), before MappingDir and the
	// exporter's labels (a replay's Schedule still wins).
	SlurmSnapshot func(ctx context.Context) (*planner.Snapshot, error)
	// Metrics, when set, count sweeps, samples and batches and watch the
	// spool (served on /metrics by the command).
	Metrics *Metrics
}

// ConfigError is a configuration that cannot work (an unknown source, a
// replay without a recording, a database schema that is not current): the
// CLI exits with status 2.
type ConfigError = inputerr.Error

// Input is where samples come from, and who holds the GPUs.
type Input struct {
	src    dcgm.Source
	mapper Mapper // nil: samples only
	paced  bool   // the source keeps its own time (replay)
	close  func()
}

// Close releases the sample source.
func (in *Input) Close() { in.close() }

// OpenInput builds the sample source of cfg and the GPU→job mapper that
// goes with it.
func OpenInput(cfg Config) (*Input, error) {
	in := &Input{close: func() {}}
	if cfg.SlurmSnapshot != nil {
		in.mapper = &slurmMapper{snapshot: cfg.SlurmSnapshot}
	}
	if d := cfg.MappingDir; d != "" && in.mapper == nil {
		h, err := dcgm.HostOrDefault(cfg.Host)
		if err != nil {
			return nil, err
		}
		in.mapper = mappingDirMapper{dir: d, host: h}
	}
	switch s := cfg.Source; s {
	case "exporter":
		src, err := dcgm.NewExporterSource(cfg.ExporterURLs, nil)
		if err != nil {
			return nil, &ConfigError{Err: fmt.Errorf("--source exporter: %w", err)}
		}
		if in.mapper == nil {
			in.mapper = exporterJobsMapper{src: src}
		}
		in.src = src
	case "replay":
		return openReplay(cfg, in)
	case "dcgm":
		src, err := dcgm.NewDCGMSource(dcgm.DCGMConfig{Address: cfg.DCGMAddress, Host: cfg.Host})
		if err != nil {
			return nil, gpuSourceError(s, err)
		}
		in.src, in.close = src, func() { src.Close() }
	case "nvml":
		src, err := dcgm.NewNVMLSource(dcgm.NVMLConfig{Host: cfg.Host})
		if err != nil {
			return nil, gpuSourceError(s, err)
		}
		in.src, in.close = src, func() { src.Close() }
	default:
		return nil, &ConfigError{Err: fmt.Errorf("--source %q: want exporter, replay, dcgm or nvml", s)}
	}
	return in, nil
}

// gpuSourceError turns a GPU source that cannot open on this node (its
// library missing, or not compiled in) into a configuration error (exit 2)
// naming the library and the alternative; other errors pass unchanged.
func gpuSourceError(source string, err error) error {
	switch {
	case errors.Is(err, dcgm.ErrUnavailable):
		return &ConfigError{Err: fmt.Errorf("--source %s: %w; this node lacks %s: install it, or collect with --source exporter "+
			"(dcgm-exporter's /metrics, --exporter-url)", source, err, dcgm.Library(source))}
	case errors.Is(err, dcgm.ErrNotBuilt):
		return &ConfigError{Err: fmt.Errorf("--source %s: %w; this strata was built without it (the .deb has it; `strata version` "+
			"lists the sources built in): use the packaged binary, or collect with --source exporter", source, err)}
	}
	return err
}

func openReplay(cfg Config, in *Input) (*Input, error) {
	if cfg.ReplayFile == "" {
		return nil, &ConfigError{Err: errors.New("--source replay needs --replay-file")}
	}
	rc := dcgm.ReplayConfig{Speed: cfg.ReplaySpeed}
	if cfg.ReplayToNow {
		probe, err := dcgm.OpenReplay(cfg.ReplayFile, dcgm.ReplayConfig{})
		if err != nil {
			return nil, err
		}
		rc.Shift = time.Since(probe.LastTime()).Truncate(time.Second)
	}
	src, err := dcgm.OpenReplay(cfg.ReplayFile, rc)
	if err != nil {
		return nil, err
	}
	if p := cfg.Schedule; p != "" {
		sched, err := dcgm.ReadSchedule(p)
		if err != nil {
			return nil, err
		}
		in.mapper = scheduleMapper{sched: sched.Shifted(rc.Shift)}
	}
	in.src, in.paced = src, true
	return in, nil
}

// TakeSpool takes cfg's spool for this process, or fails with a
// ConfigError (exit 2) naming the holder when another process holds it. A
// command takes it before anything else, so that a second collector on it
// stops before anything else can fail (its metrics port, for one), and
// keeps it until Run ends: released in between, a collector started
// a moment later could take it, and the first would be the one refused.
func TakeSpool(cfg Config, log zerolog.Logger) (*db.Spool, error) {
	spool, err := db.OpenSpool(cfg.SpoolFile, cfg.SpoolMax, db.WithSpoolLogger(log))
	if errors.Is(err, db.ErrSpoolLocked) {
		return nil, &ConfigError{Err: fmt.Errorf("--spool-file: %w", err)}
	}
	return spool, err
}

// Run samples in into st until ctx ends or a finite source is exhausted,
// then writes what is left and refreshes the rollups of the jobs it saw.
// spool is the collector's spool, taken first (TakeSpool); Run closes it
// when it ends. An unreachable database only delays the writes (batches
// are spooled); a schema that is not current stops it at once.
func Run(ctx context.Context, cfg Config, in *Input, st *db.Store, spool *db.Spool, log zerolog.Logger) error {
	defer spool.Close()
	if err := st.CheckSchema(ctx); errors.Is(err, db.ErrSchemaBehind) || errors.Is(err, db.ErrSchemaAhead) {
		return &ConfigError{Err: fmt.Errorf("collect: %w", err)}
	} else if err != nil {
		log.Warn().Err(err).Msg("database not reachable at start; spooling until it is")
	}
	ingest := db.NewIngester(st, spool)
	// What the spool holds goes first: the open assignments and the
	// latest holding change are read from what is stored.
	var drained db.WriteResult
	if _, err := ingest.FlushResult(ctx, &drained); err != nil {
		log.Warn().Err(err).Msg("spooled batches not written at start; they go before any new batch")
	}
	cfg.Metrics.replayed(drained, time.Now())
	open, err := st.OpenAssignments(ctx, "")
	if err != nil {
		log.Warn().Err(err).Msg("cannot load open GPU assignments; starting with none")
	}
	// No holding is placed before the latest change stored (a replay run
	// again from its start would open intervals already closed), but a
	// peer's clock that is ahead holds this collector back no further than now.
	floor, err := st.LatestAssignmentTime(ctx, cfg.Cluster)
	if err != nil {
		log.Warn().Err(err).Msg("cannot read the latest GPU assignment change; placing every sweep")
	}
	if now := time.Now(); floor.After(now) {
		floor = now
	}
	cfg.Metrics.spool(spool.Stats())
	co := &collector{src: in.src, mapper: in.mapper, paced: in.paced, store: st, in: ingest,
		spool: spool, metrics: cfg.Metrics,
		tracker: dcgm.NewTracker(open), log: log, cluster: cfg.Cluster,
		interval: cfg.Interval, batchSamples: cfg.BatchSamples,
		flushEvery: cfg.FlushEvery, rollupEvery: cfg.RollupEvery,
		pending: newPending(), lastTime: floor}
	co.stats.replayed, co.stats.quarantined = drained.Replayed, drained.Quarantined
	return co.run(ctx)
}
