// Package reporttest gives tests a report.Source of fixed rows. It
// computes nothing: each energy or usage query gets the rows set for its
// grouping, whatever its window and filters (the database's semantics are
// tested in package db against Postgres), and every query is recorded so
// that tests can check what the CLI or the web page asked for.
package reporttest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/strata-hpc/strata/db"
)

// Source is a report.Source of fixed rows.
type Source struct {
	// Energy and Usage map a grouping, the query's dimensions joined with
	// ',' ("" for totals, "user", "user,day"), to the rows returned.
	Energy map[string][]db.EnergyRow
	Usage  map[string][]db.UsageRow
	// Decisions are returned for every decision query.
	Decisions []db.DecisionRow
	// Jobs are the job pages; other jobs are not found.
	Jobs map[int64]db.JobReport
	// Activity and Inventory are returned for every node activity and
	// inventory query (the power advice).
	Activity  []db.NodeBusy
	Inventory []db.NodeState
	// Err, when set, fails every query.
	Err error

	mu      sync.Mutex
	queries []any
}

// Queries returns the queries received, in order: db.EnergyQuery,
// db.UsageQuery, db.DecisionQuery values, job ids (int64), and
// ActivityQuery and InventoryQuery values.
func (s *Source) Queries() []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queries)
}

func (s *Source) record(q any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries = append(s.queries, q)
}

// Grouping is the key of Energy and Usage for dimensions by.
func Grouping(by []db.ReportDim) string {
	parts := make([]string, len(by))
	for i, d := range by {
		parts[i] = string(d)
	}
	return strings.Join(parts, ",")
}

// EnergyReport returns a copy of the rows set for q.By.
func (s *Source) EnergyReport(_ context.Context, q db.EnergyQuery) ([]db.EnergyRow, error) {
	s.record(q)
	return slices.Clone(s.Energy[Grouping(q.By)]), s.Err
}

// UsageReport returns a copy of the rows set for q.By.
func (s *Source) UsageReport(_ context.Context, q db.UsageQuery) ([]db.UsageRow, error) {
	s.record(q)
	return slices.Clone(s.Usage[Grouping(q.By)]), s.Err
}

// DecisionReport returns a copy of Decisions.
func (s *Source) DecisionReport(_ context.Context, q db.DecisionQuery) ([]db.DecisionRow, error) {
	s.record(q)
	return slices.Clone(s.Decisions), s.Err
}

// JobReport returns Jobs[job], or an error wrapping db.ErrNotFound when
// there is none or a limited scope names neither its user nor its account
// (the one filter this source applies, as the database does).
func (s *Source) JobReport(_ context.Context, job int64, scope db.Scope) (db.JobReport, error) {
	s.record(job)
	if s.Err != nil {
		return db.JobReport{}, s.Err
	}
	jr, ok := s.Jobs[job]
	if ok && scope.Limited {
		ok = slices.Contains(scope.Users, jr.User) || slices.Contains(scope.Accounts, jr.Account)
	}
	if !ok {
		return db.JobReport{}, fmt.Errorf("job report %d: %w", job, db.ErrNotFound)
	}
	return jr, nil
}

// Stale is a Source whose rollups reach RolledUp while GPUs were in use
// until Activity (the reports warn).
type Stale struct {
	*Source
	RolledUp, Activity time.Time
}

// ReportFreshness returns RolledUp and Activity.
func (s Stale) ReportFreshness(context.Context) (time.Time, time.Time, error) {
	return s.RolledUp, s.Activity, nil
}

// ActivityQuery records a NodeActivity call.
type ActivityQuery struct {
	From, To time.Time
	Step     time.Duration
}

// InventoryQuery records a NodeInventory call.
type InventoryQuery struct{ At, Since time.Time }

// NodeActivity returns a copy of Activity.
func (s *Source) NodeActivity(_ context.Context, from, to time.Time, step time.Duration) ([]db.NodeBusy, error) {
	s.record(ActivityQuery{from, to, step})
	return slices.Clone(s.Activity), s.Err
}

// NodeInventory returns a copy of Inventory.
func (s *Source) NodeInventory(_ context.Context, at, since time.Time) ([]db.NodeState, error) {
	s.record(InventoryQuery{at, since})
	return slices.Clone(s.Inventory), s.Err
}
