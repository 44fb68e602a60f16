package web

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
)

// TestRunFailures: what Run refuses, and that the source is opened only
// once the auth file and the certificate are read, and always released.
func TestRunFailures(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	tests := []struct {
		name       string
		site       Site
		wantErr    string
		wantOpened bool
	}{
		{"missing auth file", Site{Listen: "127.0.0.1:0", AuthFile: "/nonexistent"}, "read basic auth file", false},
		{"missing certificate", Site{Listen: "127.0.0.1:0", TLSCert: "/nonexistent.pem", TLSKey: "/nonexistent.key"},
			"serve: load TLS certificate", false},
		{"address taken", Site{Listen: taken.Addr().String()}, "serve: listen:", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opened, released := false, false
			open := func() (report.Source, func(), error) {
				opened = true
				return reporttest.Demo(), func() { released = true }, nil
			}
			err := Run(context.Background(), tt.site, open, Config{Location: time.UTC, Log: zerolog.Nop()})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if opened != tt.wantOpened || released != opened {
				t.Errorf("source opened %v, released %v; want opened %v and released when opened", opened, released, tt.wantOpened)
			}
		})
	}
}

// TestRunStopsWithItsContext: a running server returns nil when ctx ends.
func TestRunStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	open := func() (report.Source, func(), error) { return reporttest.Demo(), func() {}, nil }
	go func() {
		done <- Run(ctx, Site{Listen: "127.0.0.1:0"}, open, Config{Location: time.UTC, Log: zerolog.Nop()})
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}
