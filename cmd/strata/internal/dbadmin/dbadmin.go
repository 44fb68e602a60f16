package dbadmin

import (
	"context"
	"fmt"
	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"io"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
)

// RefusedError is a state the admin must fix before strata runs (a schema
// behind this binary): the CLI exits with status 2.
type RefusedError = inputerr.Error

// Migrator applies migrations; *db.Store implements it.
type Migrator interface {
	Migrate(ctx context.Context) ([]int, error)
	SchemaVersion(ctx context.Context) (int, error)
}

// Migrate applies the embedded migrations and says which, with the schema
// version reached.
func Migrate(ctx context.Context, w io.Writer, st Migrator) error {
	applied, err := st.Migrate(ctx)
	if err != nil {
		return err
	}
	v, err := st.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		_, err = fmt.Fprintf(w, "schema is current (version %d)\n", v)
		return err
	}
	_, err = fmt.Fprintf(w, "applied migrations %s; schema version %d\n", joinInts(applied), v)
	return err
}

// Inspector reads the schema version and the sample partitions; *db.Store
// implements it.
type Inspector interface {
	SchemaVersion(ctx context.Context) (int, error)
	SamplePartitions(ctx context.Context) ([]string, error)
}

// Status prints the schema version against the one this binary expects
// (a RefusedError when it is behind) and the range of sample partitions.
func Status(ctx context.Context, w io.Writer, st Inspector) error {
	v, err := st.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	want, err := db.LatestVersion()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "schema version: %d (this strata expects %d)\n", v, want)
	if v < want {
		fmt.Fprintln(w, "run `strata db migrate` before starting strata")
		return RefusedError{Err: db.ErrSchemaBehind}
	}
	parts, err := st.SamplePartitions(ctx)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		_, err = fmt.Fprintln(w, "sample partitions: none")
		return err
	}
	_, err = fmt.Fprintf(w, "sample partitions: %d (%s … %s)\n", len(parts), parts[0], parts[len(parts)-1])
	return err
}

// Dropper drops sample partitions; *db.Store implements it.
type Dropper interface {
	DropSamplesBefore(ctx context.Context, cutoff time.Time) ([]string, error)
}

// Retention drops the daily sample partitions older than now-keep and
// prints each one dropped. The caller checks keep (the CLI wants a day at
// least).
func Retention(ctx context.Context, w io.Writer, st Dropper, keep time.Duration, now time.Time, log zerolog.Logger) error {
	dropped, err := st.DropSamplesBefore(ctx, now.Add(-keep))
	if err != nil {
		return err
	}
	log.Info().Int("dropped", len(dropped)).Str("keep", keep.String()).Msg("sample retention applied")
	for _, p := range dropped {
		fmt.Fprintln(w, "dropped", p)
	}
	return nil
}

// Refresher recomputes rollups; *db.Store implements it.
type Refresher interface {
	RefreshRollups(ctx context.Context, since, now time.Time) ([]int64, error)
}

// Rollup recomputes the energy rollups of the jobs active since now-since
// and says how many.
func Rollup(ctx context.Context, w io.Writer, st Refresher, since time.Duration, now time.Time) error {
	jobs, err := st.RefreshRollups(ctx, now.Add(-since), now)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "rolled up %d jobs\n", len(jobs))
	return err
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
