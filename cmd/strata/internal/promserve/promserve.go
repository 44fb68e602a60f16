// Package promserve serves a Prometheus registry on /metrics, on a listener
// of its own: the daemon's (`strata run`), the collector's and the web
// page's. Each command has its own registry (no global state) with the Go
// and process collectors and strata_build_info.
package promserve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"
)

// NewRegistry returns a registry holding the Go and process collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// SetBuildInfo publishes strata_build_info{version, commit, goversion} = 1
// on reg.
func SetBuildInfo(reg prometheus.Registerer, version, commit string) {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "strata_build_info",
		Help: "Always 1; the labels name the running build."}, []string{"version", "commit", "goversion"})
	g.WithLabelValues(version, commit, runtime.Version()).Set(1)
	reg.MustRegister(g)
}

// Serve serves reg on ln's /metrics until ctx ends, then shuts the server
// down (its serving goroutine is joined before returning).
func Serve(ctx context.Context, ln net.Listener, reg *prometheus.Registry, log zerolog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Info().Str("addr", ln.Addr().String()).Msg("serving /metrics")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// RunWith runs run and, when ln is not nil, serves reg on ln until run
// returns; run's error is returned (a failing metrics server ends run's
// context and is returned when run had none).
func RunWith(ctx context.Context, ln net.Listener, reg *prometheus.Registry, log zerolog.Logger,
	run func(context.Context) error) error {
	if ln == nil {
		return run(ctx)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return Serve(gctx, ln, reg, log) })
	var runErr error
	g.Go(func() error {
		runErr = run(gctx)
		return errRunDone // ends the metrics server
	})
	err := g.Wait()
	if runErr != nil {
		return runErr
	}
	if errors.Is(err, errRunDone) {
		return nil
	}
	return err
}

var errRunDone = errors.New("run done")
