// Package planner turns a cluster snapshot into a plan: for every pending
// and running job an action (running jobs are kept, or preempted when they
// opted in; resized in place only in simulation), a GPU count and shape, a
// start order mapped to Slurm priorities, predicted start and end, and
// reason codes.
//
// One plan cycle: the caller (strata plan/run, or the simulator) builds a
// Snapshot, picks a policy with NewPolicy (fifo, sjf, qssf, edf, priority,
// andreas, andreas-elastic, tiresias, optimus, smd, smd-elastic;
// PolicyNames lists them) and calls Plan. Policies parse the users'
// strata: hints (ParseHints), model durations with the catalog and
// the time model (EstimateDuration), choose sizes within the users'
// ranges, check every start against real node shapes, and explain every
// decision with Reason codes.
//
// The package is pure: no I/O, no clock (Snapshot.Now), no goroutines, no
// logging, no unseeded randomness. Everything taken from a map is sorted
// before use, so the same snapshot always gives the same plan; golden
// tests in testdata/ rely on it. docs/planner.md describes the models and
// algorithms, docs/hints.md the user contract.
package planner
