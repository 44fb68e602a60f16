// Package queue is what `strata queue` shows: each job of a snapshot with
// its strata: hint parsed (or the parse error in plain words), printed as
// an squeue-like table, pipe-separated lines or one JSON document. Reading
// the queue (slurmrestd) and the flags live in cmd/strata.
package queue
