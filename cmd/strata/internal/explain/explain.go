package explain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/db"
)

// Source is what explain reads; *db.Store implements it.
type Source interface {
	DecisionsForJob(ctx context.Context, jobID int64, cluster string, limit int) ([]db.StoredDecision, error)
	LatestCycle(ctx context.Context, cluster string) (db.Cycle, error)
}

// Options say which decisions to read and how to print them.
type Options struct {
	Cluster string    // Slurm cluster name ("" when one database serves one cluster)
	History int       // earlier decisions to show
	JSON    bool      // one JSON document instead of text
	Now     time.Time // relative times ("5m0s ago") are measured from Now
	// Slurm, when set, reads the job from Slurm as well: whether a time
	// limit Strata lowered still holds is read from its record.
	Slurm JobReader
}

// Explanation is the --json form.
type Explanation struct {
	JobID     int64               `json:"job_id"`
	Found     bool                `json:"found"`
	Latest    *db.StoredDecision  `json:"latest,omitempty"`
	Reasons   []Reason            `json:"reasons,omitempty"`
	History   []db.StoredDecision `json:"history,omitempty"`
	LastCycle *db.Cycle           `json:"last_cycle,omitempty"`
	// LimitLowered is a time limit Strata lowered that still holds,
	// whichever cycle lowered it.
	LimitLowered *Limit `json:"limit_lowered,omitempty"`
}

// Reason is one reason code of the latest decision with its words.
type Reason struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// Explain reads the decisions recorded for job id and writes its story to w
// (text, or JSON with o.JSON). A job without decisions is not an error: the
// text says why there may be none, and names the last cycle.
func Explain(ctx context.Context, w io.Writer, src Source, id int64, o Options) error {
	ds, err := src.DecisionsForJob(ctx, id, o.Cluster, max(1, o.History+1))
	if err != nil {
		return fmt.Errorf("explain job %d: %w", id, err)
	}
	ex := Explanation{JobID: id, Found: len(ds) > 0}
	if last, err := src.LatestCycle(ctx, o.Cluster); err == nil {
		ex.LastCycle = &last
	} else if !errors.Is(err, db.ErrNotFound) {
		return fmt.Errorf("explain job %d: %w", id, err)
	}
	if len(ds) > 0 {
		ex.Latest, ex.History = &ds[0], ds[1:]
		for _, r := range ds[0].Reasons {
			ex.Reasons = append(ex.Reasons, Reason{string(r), r.Describe()})
		}
	}
	if ex.LimitLowered, err = loweredLimit(ctx, src, o, id, ds); err != nil {
		return fmt.Errorf("explain job %d: %w", id, err)
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	return writeText(w, ex, o.Now)
}

// ParseJobID accepts Slurm's forms "123", "123_4" (array task: the task's
// own job ID is needed) and "123.batch" (step: the job).
func ParseJobID(s string) (int64, error) {
	if i := strings.IndexAny(s, ".+"); i >= 0 {
		s = s[:i]
	}
	if strings.Contains(s, "_") {
		return 0, fmt.Errorf("job %q is an array task: give its own job ID (squeue -o %%A)", s)
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("job ID %q: want a number", s)
	}
	return id, nil
}
