package db

import (
	"context"
	"errors"
	"slices"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/dcgm"
)

// sampleColumns are the COPY columns of gpu_sample, in order.
var sampleColumns = []string{"ts", "gpu_uuid", "host", "util_gpu", "util_mem", "power_w",
	"energy_mj", "mem_used", "pids", "source"}

// InsertSamples stores samples with COPY. Re-inserting samples already
// stored (same GPU UUID and time) is a no-op, so a batch may be retried
// after an uncertain failure. The daily partitions and GPU rows are created
// as needed. Errors wrap ErrUnavailable when Postgres cannot be reached.
func (s *Store) InsertSamples(ctx context.Context, samples []dcgm.Sample) error {
	if len(samples) == 0 {
		return nil
	}
	if err := s.ensurePartitions(ctx, samples); err != nil {
		return err
	}
	if err := s.upsertGPUs(ctx, samples); err != nil {
		return err
	}
	_, err := s.pool.CopyFrom(ctx, pgx.Identifier{"gpu_sample"}, sampleColumns, newSampleRows(samples))
	if err == nil {
		return nil
	}
	if ierr := interpretError("insert samples", err); !errors.Is(ierr, ErrConflict) {
		return ierr
	}
	return s.mergeSamples(ctx, samples)
}

// mergeSamples is the slow path taken when a batch overlaps stored samples:
// COPY into a temporary table, then insert what is missing.
func (s *Store) mergeSamples(ctx context.Context, samples []dcgm.Sample) error {
	create, err := s.q.get("CreateSampleStaging")
	if err != nil {
		return err
	}
	merge, err := s.q.get("MergeSampleStaging")
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, create); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"gpu_sample_staging"}, sampleColumns, newSampleRows(samples)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, merge)
		return err
	})
	return interpretError("insert samples (merge)", err)
}

// ensurePartitions creates the daily partitions the samples fall into,
// remembering those that exist.
func (s *Store) ensurePartitions(ctx context.Context, samples []dcgm.Sample) error {
	days := map[int64]time.Time{} // by Unix day start: no string per sample
	for i := range samples {
		d := samples[i].Time.UTC().Truncate(24 * time.Hour)
		days[d.Unix()] = d
	}
	keys := make([]int64, 0, len(days))
	s.partMu.Lock()
	for k := range days {
		if !s.partsOK[k] {
			keys = append(keys, k)
		}
	}
	s.partMu.Unlock()
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	q, err := s.q.get("EnsureSamplePartition")
	if err != nil {
		return err
	}
	for _, k := range keys {
		if _, err := s.pool.Exec(ctx, q, days[k]); err != nil {
			return interpretError("create sample partition "+days[k].Format("20060102"), err)
		}
		s.partMu.Lock()
		s.partsOK[k] = true
		s.partMu.Unlock()
	}
	return nil
}

// gpuMeta is what Store remembers of a GPU row it has written.
type gpuMeta struct {
	host         string
	index, minor int
	bus          string
	memTotal     uint64
	lastSeen     time.Time
}

// gpuRefresh is how stale gpu.last_seen may get before a batch rewrites it.
const gpuRefresh = time.Minute

// upsertGPUs records the GPUs of the batch that are new, changed, or whose
// last_seen is more than gpuRefresh old (one statement; usually none).
func (s *Store) upsertGPUs(ctx context.Context, samples []dcgm.Sample) error {
	latest := map[string]int{}
	for i := range samples {
		if j, ok := latest[samples[i].UUID]; !ok || samples[i].Time.After(samples[j].Time) {
			latest[samples[i].UUID] = i
		}
	}
	idx := make([]int, 0, len(latest))
	s.gpuMu.Lock()
	for uuid, i := range latest {
		x := &samples[i]
		m, ok := s.gpus[uuid]
		if !ok || m.host != x.Host || m.index != x.Index || m.minor != x.Minor || m.bus != x.BusID ||
			m.memTotal != x.MemTotal || x.Time.Sub(m.lastSeen) > gpuRefresh {
			idx = append(idx, i)
		}
	}
	s.gpuMu.Unlock()
	if len(idx) == 0 {
		return nil
	}
	sort.Ints(idx)
	n := len(idx)
	uuids, hosts, buses := make([]string, n), make([]string, n), make([]string, n)
	indices, minors := make([]int32, n), make([]int32, n)
	totals, seen := make([]int64, n), make([]time.Time, n)
	for k, i := range idx {
		x := &samples[i]
		uuids[k], hosts[k], buses[k] = x.UUID, x.Host, x.BusID
		indices[k], minors[k], totals[k], seen[k] = int32(x.Index), int32(x.Minor), int64(x.MemTotal), x.Time
	}
	q, err := s.q.get("UpsertGPUs")
	if err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, q, uuids, hosts, indices, minors, buses, totals, seen); err != nil {
		return interpretError("upsert gpus", err)
	}
	s.gpuMu.Lock()
	for _, i := range idx {
		x := &samples[i]
		s.gpus[x.UUID] = gpuMeta{host: x.Host, index: x.Index, minor: x.Minor, bus: x.BusID, memTotal: x.MemTotal, lastSeen: x.Time}
	}
	s.gpuMu.Unlock()
	return nil
}

// sampleRows feeds samples to COPY, reusing one row slice.
type sampleRows struct {
	s   []dcgm.Sample
	i   int
	row []any
}

func newSampleRows(s []dcgm.Sample) *sampleRows {
	return &sampleRows{s: s, i: -1, row: make([]any, len(sampleColumns))}
}

func (r *sampleRows) Next() bool { r.i++; return r.i < len(r.s) }

func (r *sampleRows) Values() ([]any, error) {
	x := &r.s[r.i]
	r.row[0], r.row[1], r.row[2] = x.Time, x.UUID, x.Host
	r.row[3], r.row[4], r.row[5] = float32(x.UtilGPU), float32(x.UtilMem), float32(x.PowerW)
	r.row[6], r.row[7] = int64(x.EnergyMJ), int64(x.MemUsed)
	if x.PIDs == nil {
		r.row[8] = nil
	} else {
		r.row[8] = x.PIDs
	}
	r.row[9] = x.Source
	return r.row, nil
}

func (r *sampleRows) Err() error { return nil }

// CountSamples returns how many samples are stored with from ≤ time < to.
func (s *Store) CountSamples(ctx context.Context, from, to time.Time) (int64, error) {
	q, err := s.q.get("CountSamples")
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.pool.QueryRow(ctx, q, from, to).Scan(&n)
	return n, interpretError("count samples", err)
}

// SamplePartitions lists the daily sample partitions, oldest first.
func (s *Store) SamplePartitions(ctx context.Context) ([]string, error) {
	return s.strings(ctx, "SamplePartitions", "list sample partitions")
}

// DropSamplesBefore drops the daily sample partitions of days before
// cutoff's UTC day and returns their names. Rollups are kept.
func (s *Store) DropSamplesBefore(ctx context.Context, cutoff time.Time) ([]string, error) {
	dropped, err := s.strings(ctx, "DropSamplePartitions", "drop sample partitions", cutoff.UTC().Truncate(24*time.Hour))
	if err != nil {
		return nil, err
	}
	s.partMu.Lock()
	s.partsOK = map[int64]bool{}
	s.partMu.Unlock()
	return dropped, nil
}

func (s *Store) strings(ctx context.Context, name, op string, args ...any) ([]string, error) {
	q, err := s.q.get(name)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, interpretError(op, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, interpretError(op, err)
	}
	return out, nil
}
