package jobenv

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
)

// Decisions is what Lookup reads from the database; *db.Store implements it.
type Decisions interface {
	DecisionsForJob(ctx context.Context, jobID int64, cluster string, limit int) ([]db.StoredDecision, error)
}

// Lookup says where to look for a job's decision, in order: AdminComment,
// else scontrol, else the database.
type Lookup struct {
	// AdminComment, when set, is used instead of asking scontrol.
	AdminComment *string
	// Scontrol returns the job's admin comment (nil: `scontrol show job`).
	Scontrol func(ctx context.Context, id int64) (string, error)
	// Open opens the database and returns its release function (nil: no
	// database).
	Open func() (Decisions, func(), error)
	Log  zerolog.Logger
}

// Find returns the decision written to job id, whether there is one, and
// its source ("flag", "scontrol", "database" or "none"). A source that
// cannot tell is logged, not returned: the job still gets its exports.
func (l Lookup) Find(ctx context.Context, id int64) (a decide.Written, ok bool, source string) {
	scontrol := l.Scontrol
	if scontrol == nil {
		scontrol = AdminComment
	}
	a, source = decide.Written{}, "none"
	if l.AdminComment != nil {
		a, ok = decide.ParseAdminComment(*l.AdminComment)
		source = "flag"
	} else if s, err := scontrol(ctx, id); err == nil {
		a, ok = decide.ParseAdminComment(s)
		source = "scontrol"
	} else {
		l.Log.Debug().Err(err).Msg("scontrol cannot tell")
	}
	if !ok && l.Open != nil {
		if d, found, err := l.fromDatabase(ctx, id); err != nil {
			l.Log.Warn().Err(err).Msg("database cannot tell")
		} else if found {
			a, ok, source = d, true, "database"
		}
	}
	return a, ok, source
}

// fromDatabase is the latest decision applied to the job.
func (l Lookup) fromDatabase(ctx context.Context, id int64) (decide.Written, bool, error) {
	st, release, err := l.Open()
	if err != nil {
		return decide.Written{}, false, err
	}
	defer release()
	ds, err := st.DecisionsForJob(ctx, id, "", 50)
	if err != nil {
		return decide.Written{}, false, err
	}
	for _, d := range ds {
		if d.Outcome == decide.Applied {
			return decide.Written{Workers: d.Workers, PS: d.PS, Rank: d.Rank, Cycle: d.CycleID}, true, nil
		}
	}
	return decide.Written{}, false, nil
}

// AdminComment asks scontrol for the job's admin comment (no credentials
// are needed for one's own job).
func AdminComment(ctx context.Context, id int64) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "scontrol", "show", "job", "-o", strconv.FormatInt(id, 10)).Output()
	if err != nil {
		return "", fmt.Errorf("scontrol show job %d: %w", id, err)
	}
	_, after, found := strings.Cut(string(out), "AdminComment=")
	if !found {
		return "", fmt.Errorf("scontrol show job %d: no AdminComment field", id)
	}
	return after, nil
}

// Write prints the exports of job id: decision a when ok, else the job's
// own allocation from Slurm's job environment (getenv). Values are
// integers, so no quoting is needed.
func Write(w io.Writer, id int64, a decide.Written, ok bool, source string, getenv func(string) string) error {
	decided := 0
	if ok {
		decided = 1
	} else {
		a = decide.Written{Workers: ownGPUs(getenv)}
	}
	_, err := fmt.Fprintf(w, "export STRATA_JOB_ID=%d\nexport STRATA_DECIDED=%d\nexport STRATA_WORKERS=%d\n"+
		"export STRATA_PS=%d\nexport STRATA_RANK=%d\nexport STRATA_CYCLE=%d\n# source: %s\n",
		id, decided, a.Workers, a.PS, a.Rank, a.Cycle, source)
	return err
}

// ownGPUs is the job's GPU allocation from Slurm's job environment.
func ownGPUs(getenv func(string) string) int {
	atoi := func(k string) int { n, _ := strconv.Atoi(getenv(k)); return n }
	if n := atoi("SLURM_GPUS"); n > 0 {
		return n
	}
	return atoi("SLURM_GPUS_ON_NODE") * max(1, atoi("SLURM_JOB_NUM_NODES"))
}
