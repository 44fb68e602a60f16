package db

import (
	"context"
	"fmt"
	"time"
)

// NodeBusy is one host's busy GPUs in one interval of a NodeActivity
// window.
type NodeBusy struct {
	Host string
	// Bucket is the interval's start.
	Bucket time.Time
	// BusyGPUs counts the distinct GPUs a job held at some time in it.
	BusyGPUs int
}

// NodeActivity returns, per host and per interval of length step in
// [from, to) (intervals start at from + k·step), how many of its GPUs a job
// held (from gpu_assignment; open assignments count up to to). Intervals
// without a busy GPU are left out. Ordered by host, then time.
func (s *Store) NodeActivity(ctx context.Context, from, to time.Time, step time.Duration) ([]NodeBusy, error) {
	if !from.Before(to) || step <= 0 {
		return nil, fmt.Errorf("node activity: window %s..%s step %s: want from < to and a positive step", from, to, step)
	}
	q, err := s.q.get("NodeActivity")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, from, to, step)
	if err != nil {
		return nil, interpretError("node activity", err)
	}
	defer rows.Close()
	var out []NodeBusy
	for rows.Next() {
		var r NodeBusy
		if err := rows.Scan(&r.Host, &r.Bucket, &r.BusyGPUs); err != nil {
			return nil, interpretError("node activity", err)
		}
		r.Bucket = r.Bucket.UTC()
		out = append(out, r)
	}
	return out, interpretError("node activity", rows.Err())
}

// NodeState is one host as the collector last saw it.
type NodeState struct {
	Host string
	GPUs int
	// LastSeen is its last sample; LastBusy when a job last held one of
	// its GPUs up to the time asked (zero: never); Busy whether one does
	// then.
	LastSeen, LastBusy time.Time
	Busy               bool
}

// NodeInventory returns every host the collector has seen since since, as
// of at, by name.
func (s *Store) NodeInventory(ctx context.Context, at, since time.Time) ([]NodeState, error) {
	q, err := s.q.get("NodeInventory")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, at, since)
	if err != nil {
		return nil, interpretError("node inventory", err)
	}
	defer rows.Close()
	var out []NodeState
	for rows.Next() {
		var r NodeState
		var lastBusy *time.Time
		if err := rows.Scan(&r.Host, &r.GPUs, &r.LastSeen, &lastBusy, &r.Busy); err != nil {
			return nil, interpretError("node inventory", err)
		}
		r.LastSeen = r.LastSeen.UTC()
		if lastBusy != nil {
			r.LastBusy = lastBusy.UTC()
		}
		out = append(out, r)
	}
	return out, interpretError("node inventory", rows.Err())
}
