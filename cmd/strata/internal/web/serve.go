package web

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/strata-hpc/strata/cmd/strata/internal/promserve"
	"github.com/strata-hpc/strata/cmd/strata/internal/report"
)

// Site is where and how `strata serve` serves the page.
type Site struct {
	Listen   string // TCP address
	AuthFile string // basic-auth file of user:pbkdf2-sha256$... lines ("" = no auth)
	TLSCert  string // PEM certificate ("" = plain HTTP); set with TLSKey
	TLSKey   string // PEM private key
	// MetricsListen serves cfg.Metrics on /metrics at this address, apart
	// from the page ("" or no cfg.Metrics = none).
	MetricsListen string
}

// Run serves the page of cfg on s.Listen until ctx ends. cfg.Users comes
// from s.AuthFile and cfg.Source from open, called once the auth file and
// the certificate are read and released at the end. It warns when the
// address is not loopback and there is no authentication, or basic auth
// goes without TLS.
func Run(ctx context.Context, s Site, open report.Opener, cfg Config) error {
	var err error
	if s.AuthFile != "" {
		users, err := ReadUsers(s.AuthFile)
		if err != nil {
			return err
		}
		cfg.Users, cfg.Roles = users.Hashes, users.Roles
		if un := users.Unroled(); len(un) > 0 {
			cfg.Log.Warn().Strs("logins", un).Str("file", s.AuthFile).
				Msg("basic auth file: these logins name no role, so they see only their own jobs (Slurm user = login name); " +
					"append :admin, :user or :coordinator=ACCT to their lines (docs/reports.md, Who sees what)")
		}
	}
	tlsCfg, err := LoadTLS(s.TLSCert, s.TLSKey)
	if err != nil {
		return err
	}
	src, closeSrc, err := open()
	if err != nil {
		return err
	}
	defer closeSrc()
	cfg.Source = src
	h, err := New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return fmt.Errorf("serve: listen: %w", err)
	}
	var mln net.Listener
	var reg *prometheus.Registry
	if s.MetricsListen != "" && cfg.Metrics != nil {
		if mln, err = net.Listen("tcp", s.MetricsListen); err != nil {
			ln.Close()
			return fmt.Errorf("serve: metrics listen: %w", err)
		}
		reg = cfg.Metrics.Registry()
	}
	lg, users := cfg.Log, cfg.Users
	if !cfg.signs() && !IsLoopback(ln.Addr()) {
		lg.Warn().Str("addr", ln.Addr().String()).Msg("serving without authentication on a non-loopback address")
	}
	if users != nil && s.TLSCert == "" && !IsLoopback(ln.Addr()) {
		lg.Warn().Msg("basic auth without TLS sends passwords in clear text; set --tls-cert/--tls-key")
	}
	lg.Info().Str("addr", ln.Addr().String()).Bool("tls", tlsCfg != nil).Bool("auth", users != nil).
		Str("user_header", cfg.UserHeader).Int("trusted_proxies", len(cfg.TrustedProxies)).Msg("serving")
	return promserve.RunWith(ctx, mln, reg, lg, func(ctx context.Context) error { return Serve(ctx, ln, h, tlsCfg) })
}

// LoadTLS returns the TLS configuration of a certificate and key (PEM
// files); nil when cert is empty (plain HTTP).
func LoadTLS(cert, key string) (*tls.Config, error) {
	if cert == "" {
		return nil, nil
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("serve: load TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// Serve serves h on ln (with TLS when tlsCfg is set) until ctx ends, then
// shuts down gracefully.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, tlsCfg *tls.Config) error {
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

// IsLoopback says whether a is a loopback TCP address.
func IsLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
