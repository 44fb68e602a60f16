package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/strata-hpc/strata/db"
)

// Args are a report's command-line arguments as given: the window in
// sacct's forms (-S/--starttime, -E/--endtime), the time zone, filters,
// grouping and output mode. Errors of Query and Window name those flags.
type Args struct {
	Start, End string
	TimeZone   string
	Users      []string
	Accounts   []string
	Partitions []string
	Clusters   []string
	Jobs       []string
	// States are sacct --state values: job states, long or short forms,
	// any case, comma-separated.
	States []string
	By     []string
	Mode   OutputMode
}

// Query checks a into a Query, relative times anchored at now. Invalid
// input is an InputError.
func (a Args) Query(now time.Time) (Query, error) {
	var q Query
	var err error
	if q.Loc, q.Filter.From, q.Filter.To, err = a.window(now); err != nil {
		return q, err
	}
	if err := q.Filter.Validate(); err != nil {
		return q, inputError(err)
	}
	q.Filter.Users, q.Filter.Accounts, q.Filter.Partitions, q.Filter.Clusters = a.Users, a.Accounts, a.Partitions, a.Clusters
	if q.Filter.Jobs, err = ParseJobIDs(a.Jobs); err != nil {
		return q, inputError(err)
	}
	if q.Filter.States, err = ParseStates(a.States); err != nil {
		return q, inputError(err)
	}
	if q.By, err = db.ParseReportDims(a.By); err != nil {
		return q, inputError(err)
	}
	if err := checkUnits(a.Mode); err != nil {
		return q, inputError(err)
	}
	q.Mode = a.Mode
	return q, nil
}

// Window parses a.Start and a.End in the zone a.TimeZone, relative times
// anchored at now. Invalid input is an InputError.
func (a Args) Window(now time.Time) (from, to time.Time, err error) {
	_, from, to, err = a.window(now)
	return from, to, err
}

func (a Args) window(now time.Time) (loc *time.Location, from, to time.Time, err error) {
	if loc, err = LoadZone(a.TimeZone); err != nil {
		return nil, from, to, inputError(err)
	}
	if from, err = ParseTime(a.Start, now, loc); err != nil {
		return nil, from, to, inputError(fmt.Errorf("--starttime: %w", err))
	}
	if to, err = ParseTime(a.End, now, loc); err != nil {
		return nil, from, to, inputError(fmt.Errorf("--endtime: %w", err))
	}
	return loc, from, to, nil
}

// jobStates maps Slurm's job states and their short forms (as sacct
// --state accepts them) to the long form the job table stores.
var jobStates = map[string]string{
	"BF": "BOOT_FAIL", "CA": "CANCELLED", "CD": "COMPLETED", "DL": "DEADLINE", "F": "FAILED",
	"NF": "NODE_FAIL", "OOM": "OUT_OF_MEMORY", "PD": "PENDING", "PR": "PREEMPTED", "R": "RUNNING",
	"RQ": "REQUEUED", "RS": "RESIZING", "RV": "REVOKED", "S": "SUSPENDED", "TO": "TIMEOUT",
}

// ParseStates reads --state values ("completed,TO", "F") into long upper
// case state names, in the order given without repeats; an unknown state
// is an error naming the flag.
func ParseStates(values []string) ([]string, error) {
	known := map[string]bool{}
	for _, long := range jobStates {
		known[long] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			st := strings.ToUpper(strings.TrimSpace(s))
			if st == "" {
				continue
			}
			if long, ok := jobStates[st]; ok {
				st = long
			}
			if !known[st] {
				return nil, fmt.Errorf("parse --state %q: want a Slurm job state such as COMPLETED, TIMEOUT, FAILED, CANCELLED (or CD, TO, F, CA)", s)
			}
			if !seen[st] {
				seen[st] = true
				out = append(out, st)
			}
		}
	}
	return out, nil
}
