package daemon

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/strata-hpc/strata/db"
)

func TestCheckSchemaAtStart(t *testing.T) {
	tests := []struct {
		name    string
		openErr error
		wantErr error
	}{
		{"current", nil, nil},
		{"unreachable: only delays the first cycle", errors.New("connection refused"), nil},
		{"behind", db.ErrSchemaBehind, db.ErrSchemaBehind},
		{"ahead", db.ErrSchemaAhead, db.ErrSchemaAhead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open := func(context.Context) (Store, error) {
				if tt.openErr != nil {
					return nil, tt.openErr
				}
				return newFakePostgres(), nil
			}
			err := CheckSchemaAtStart(context.Background(), open)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestRunWithMetricsStopsTheServer: when the loop ends (here after one
// cycle) the metrics server is shut down and its listener closed.
func TestRunWithMetricsStopsTheServer(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), m: NewMetrics()}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := newTestDaemon(t, bed, testOptions()).RunWithMetrics(ctx, ln); err != nil {
		t.Fatalf("RunWithMetrics: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the loop did not end after its cycle")
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the metrics listener still accepts connections")
	}
}
