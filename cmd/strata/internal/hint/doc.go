// Package hint is `strata hint check`: it parses the strata: segment of a
// job comment, checks the model and batch size against the model catalog,
// and prints the hints (a table, or JSON) with the modelled run time at a
// few GPU counts, so users see mistakes before they submit. The parser is
// planner.ParseHints; the flags live in cmd/strata.
package hint
