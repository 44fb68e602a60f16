// Package plan prints the result of one plan cycle (`strata plan`): one
// line per decision with what the guards and Apply did and why, then the
// request bodies sent (or, in shadow mode, that would be sent), or one JSON
// document with the plan, the guard verdicts and the apply report; and
// whether the command failed (a daemon held the writer lock, writes
// failed). The cycle itself is internal/daemon; the flags live in
// cmd/strata.
package plan
