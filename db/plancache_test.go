package db_test

import (
	"context"
	"testing"
)

// TestReportsPlannedPerExecution: every Strata connection plans each
// statement for its parameters (plan_cache_mode force_custom_plan); with
// Postgres' default a prepared report query switched to a generic plan on
// its sixth run and took minutes instead of 0.2 s (make bench-store).
func TestReportsPlannedPerExecution(t *testing.T) {
	s, _ := demoStore(t)
	var mode string
	if err := s.QueryRowForTest(context.Background(), "SHOW plan_cache_mode", &mode); err != nil {
		t.Fatal(err)
	}
	if mode != "force_custom_plan" {
		t.Errorf("plan_cache_mode = %q, want force_custom_plan", mode)
	}
}
