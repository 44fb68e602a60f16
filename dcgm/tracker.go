package dcgm

import (
	"sort"
	"time"
)

// Assignment is one interval during which a job held a GPU. To is zero while
// the assignment is open. (Job, UUID, From) identifies it.
type Assignment struct {
	Job  int64     `json:"job"`
	Host string    `json:"host"`
	UUID string    `json:"uuid"`
	From time.Time `json:"from"`
	To   time.Time `json:"to,omitzero"`
}

type assignKey struct {
	job  int64
	uuid string
}

// Tracker turns successive GPU→job mappings into assignment intervals. It is
// not safe for concurrent use.
//
// Its clock never goes back: a mapping observed at a time before the latest
// one it placed (the sweep clock stepped back, or a restarted replay) is
// ignored, and no assignment ever closes before it opened. The database
// refuses such an interval (gpu_assignment_check), and an interval placed on
// a clock that went back would count hours twice.
type Tracker struct {
	open   map[assignKey]Assignment
	latest time.Time // the latest observation placed, or the latest From resumed
}

// NewTracker returns a tracker that continues the given open assignments
// (for example those still open in the database after a restart).
func NewTracker(open []Assignment) *Tracker {
	t := &Tracker{open: map[assignKey]Assignment{}}
	for _, a := range open {
		if a.To.IsZero() {
			t.open[assignKey{a.Job, a.UUID}] = a
			if a.From.After(t.latest) {
				t.latest = a.From
			}
		}
	}
	return t
}

// Latest returns the time of the latest observation placed (or the latest
// start of a resumed assignment); zero before any.
func (t *Tracker) Latest() time.Time { return t.latest }

// Observe records the mapping seen at now (JobGPUs with resolved UUIDs) and
// returns the assignments that changed: newly opened ones (From = Since when
// the input knew it, else now) and closed ones (To = now, the first time the
// holding was seen absent, but never before From). An observation at a time
// before Latest changes nothing: its time cannot be placed (the clock
// stepped back; callers that want to say so compare with Latest first).
// Results are sorted by job, then UUID.
func (t *Tracker) Observe(now time.Time, current []JobGPU) (opened, closed []Assignment) {
	if now.Before(t.latest) {
		return nil, nil
	}
	t.latest = now
	seen := map[assignKey]bool{}
	for _, j := range current {
		if j.UUID == "" {
			continue
		}
		k := assignKey{j.Job, j.UUID}
		seen[k] = true
		if _, ok := t.open[k]; ok {
			continue
		}
		from := now
		if !j.Since.IsZero() && j.Since.Before(now) {
			from = j.Since
		}
		a := Assignment{Job: j.Job, Host: j.Host, UUID: j.UUID, From: from}
		t.open[k] = a
		opened = append(opened, a)
	}
	for k, a := range t.open {
		if !seen[k] {
			a.To = now
			if a.To.Before(a.From) { // a resumed From from a clock that was ahead
				a.To = a.From
			}
			closed = append(closed, a)
			delete(t.open, k)
		}
	}
	sortAssignments(opened)
	sortAssignments(closed)
	return opened, closed
}

func sortAssignments(s []Assignment) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].Job != s[j].Job {
			return s[i].Job < s[j].Job
		}
		if s[i].UUID != s[j].UUID {
			return s[i].UUID < s[j].UUID
		}
		return s[i].From.Before(s[j].From)
	})
}
