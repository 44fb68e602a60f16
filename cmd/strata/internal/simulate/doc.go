// Package simulate is `strata simulate` below its flags: it turns the
// command's options into a simulator configuration (cluster, Slurm model,
// power overrides, scaling curves, policies), reads the trace, runs the
// policies a few at once with a progress bar, and writes the report (table,
// JSON, SVG plots), or the evaluation tables of saved JSON reports
// (Markdown). The simulator itself is sim; the flags live in
// cmd/strata (Options).
package simulate
