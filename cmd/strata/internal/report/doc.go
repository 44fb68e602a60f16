// Package report is what `strata report` and `strata serve` share: the
// report queries over a Source (Postgres rollups), the sacct-like output
// (selectable --format fields, -P/-p/-n tables, JSON documents), the number
// formats, and sacct's time forms (now-7days, today, YYYY-MM-DDTHH:MM, ...).
// The CLI flags that fill a Query live in cmd/strata.
package report
