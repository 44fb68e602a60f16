package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
)

// Flag names of `strata serve`.
const (
	flagServeListen   = "listen"
	flagServeAuthFile = "basic-auth-file"
	flagServeTLSCert  = "tls-cert"
	flagServeTLSKey   = "tls-key"
)

func serveCommand() *cli.Command { return serveCommandWith(openDBReportSource) }

func serveCommandWith(open openSourceFunc) *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: flagServeListen, Value: "127.0.0.1:8080", EnvVars: []string{"STRATA_LISTEN"},
			Usage: "address to listen on (keep it on loopback unless TLS and basic auth are set)"},
		&cli.StringFlag{Name: flagServeAuthFile, EnvVars: []string{"STRATA_BASIC_AUTH_FILE"},
			Usage: "require HTTP basic auth; file of `user:pbkdf2-sha256$...` lines (see `strata serve passwd`)"},
		&cli.StringFlag{Name: flagServeTLSCert, EnvVars: []string{"STRATA_TLS_CERT"}, Usage: "TLS certificate (PEM)"},
		&cli.StringFlag{Name: flagServeTLSKey, EnvVars: []string{"STRATA_TLS_KEY"}, Usage: "TLS private key (PEM)"},
		&cli.StringFlag{Name: flagReportTZ, Value: "Local", EnvVars: []string{"STRATA_TIMEZONE"},
			Usage: "time zone for times and day buckets (IANA name, Local or UTC)"},
	}
	flags = append(flags, energyFlags()...)
	flags = append(flags, reportDBFlags()...)
	return &cli.Command{
		Name:  "serve",
		Usage: "read-only web page of energy reports and planner decisions (with the same data as JSON)",
		Description: "Pages: / (overview: energy and GPU-hours over time, top users and accounts,\n" +
			"idle-GPU waste, planner decisions), /job/ID (one job). JSON: /api/energy,\n" +
			"/api/usage, /api/decisions, /api/job/ID (same query parameters as the pages:\n" +
			"start, end, by, user, account, partition, job). Works without JavaScript and\n" +
			"without Internet access (charts are embedded).",
		Flags:       flags,
		Subcommands: []*cli.Command{passwdCommand()},
		Action:      func(c *cli.Context) error { return runServe(c, open) },
	}
}

func runServe(c *cli.Context, open openSourceFunc) error {
	lg := logger(c).With().Str("component", "serve").Logger()
	loc, err := report.LoadZone(c.String(flagReportTZ))
	if err != nil {
		return usageError(err)
	}
	cert, key := c.String(flagServeTLSCert), c.String(flagServeTLSKey)
	if (cert == "") != (key == "") {
		return usageError(errors.New("serve: --tls-cert and --tls-key go together"))
	}
	var users htpasswd
	if path := c.String(flagServeAuthFile); path != "" {
		if users, err = readHtpasswd(path); err != nil {
			return err
		}
	}
	var tlsCfg *tls.Config
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return fmt.Errorf("serve: load TLS certificate: %w", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}
	src, closeSrc, err := open(c)
	if err != nil {
		return err
	}
	defer closeSrc()
	h, err := newWebServer(webConfig{Source: src, Location: loc, Log: lg, Users: users,
		Factors: report.EnergyFactors{CostPerKWh: c.Float64(flagReportCost), Currency: c.String(flagReportCurrency),
			CO2KgPerKWh: c.Float64(flagReportCO2)}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.String(flagServeListen))
	if err != nil {
		return fmt.Errorf("serve: listen: %w", err)
	}
	if users == nil && !isLoopback(ln.Addr()) {
		lg.Warn().Str("addr", ln.Addr().String()).Msg("serving without authentication on a non-loopback address")
	}
	if users != nil && cert == "" && !isLoopback(ln.Addr()) {
		lg.Warn().Msg("basic auth without TLS sends passwords in clear text; set --tls-cert/--tls-key")
	}
	lg.Info().Str("addr", ln.Addr().String()).Bool("tls", tlsCfg != nil).Bool("auth", users != nil).Msg("serving")
	return serveUntilDone(c.Context, ln, h, tlsCfg)
}

// serveUntilDone serves on ln (with TLS when tlsCfg is set) until ctx
// ends, then shuts down gracefully.
func serveUntilDone(ctx context.Context, ln net.Listener, h http.Handler, tlsCfg *tls.Config) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute, TLSConfig: tlsCfg}
	errc := make(chan error, 1)
	go func() {
		if tlsCfg != nil {
			errc <- srv.ServeTLS(ln, "", "")
			return
		}
		errc <- srv.Serve(ln)
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
