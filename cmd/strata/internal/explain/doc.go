// Package explain tells the story of one job from the audit trail the
// daemon keeps in Postgres (`strata explain`): the latest decision and its
// reasons in words, the predicted start and completion, what was written to
// Slurm (or, in shadow mode, what enforce mode would have written), what
// the comparison policies would have done, and the earlier decisions; as
// text or as one JSON document. Its flags live in cmd/strata.
package explain
