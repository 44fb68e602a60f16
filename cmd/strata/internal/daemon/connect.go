package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/slurm"
)

// SlurmConnector returns a Deps.Connect that builds the Slurm client;
// slurm.New asks slurmrestd for its API versions, so it fails while
// slurmrestd is down (and the next cycle tries again).
func SlurmConnector(cfg slurm.Config, log zerolog.Logger) func(ctx context.Context) (Cluster, error) {
	return func(ctx context.Context) (Cluster, error) {
		cl, err := slurm.New(ctx, cfg, log)
		if err != nil {
			if errors.Is(err, slurm.ErrUnsupportedVersion) {
				log.Error().Err(err).Msg("slurmrestd api version unsupported")
			}
			return nil, fmt.Errorf("connect to slurmrestd: %w", err)
		}
		return cl, nil
	}
}

// StoreOpener returns a Deps.Open that opens Postgres and refuses a schema
// that is not current.
func StoreOpener(cfg db.Config) func(ctx context.Context) (Store, error) {
	return func(ctx context.Context) (Store, error) {
		st, err := db.Open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		if err := st.CheckSchema(ctx); err != nil {
			st.Close()
			return nil, err
		}
		return StoreOf(st), nil
	}
}

// CheckSchemaAtStart opens the store once (for 10 s at most) and returns an
// error only when its schema is behind or ahead of this binary: an
// unreachable database only delays the first cycle.
func CheckSchemaAtStart(ctx context.Context, open func(context.Context) (Store, error)) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := open(ctx)
	switch {
	case errors.Is(err, db.ErrSchemaBehind), errors.Is(err, db.ErrSchemaAhead):
		return fmt.Errorf("database: %w", err)
	case err == nil:
		st.Close()
	}
	return nil
}

// RunWithMetrics runs the loop (Run) and, when ln is not nil, serves the
// daemon's /metrics on ln until the loop ends.
func (d *Daemon) RunWithMetrics(ctx context.Context, ln net.Listener) error {
	g, gctx := errgroup.WithContext(ctx)
	if ln != nil {
		g.Go(func() error { return ServeMetrics(gctx, ln, d.m, d.log) })
	}
	g.Go(func() error {
		err := d.Run(gctx)
		// The loop ended (SIGTERM or Cycles): stop the metrics server.
		return errors.Join(err, errLoopDone)
	})
	if err := g.Wait(); err != nil && !errors.Is(err, errLoopDone) {
		return err
	}
	return nil
}

// errLoopDone ends the errgroup (and so the metrics server) when the loop
// returns normally.
var errLoopDone = errors.New("loop done")
