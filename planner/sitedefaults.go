package planner

// SiteDefaults are the options a site gets when its configuration says
// nothing: what `strata run`, `plan`, `queue --start`, `explain`, `hint
// check` and `simulate` use alike, with or without a configuration file
// (issue 33). Every field left zero here takes the planner's built-in
// default (Options.withDefaults); the fields set here are the ones whose
// site default is not their zero value:
//
//   - Limits: the default caps on hints (DefaultLimits: weight ≤ 1, a
//     gpus= range at most 2× the request);
//   - BindClaims stays false: Strata never lowers a time limit unless the
//     site turns binding on (bind-claims = true). Measured with realistic
//     knowledge and a catalog 3× off per model (docs/evaluation.md §
//     Prediction error), binding killed honest jobs at every margin while
//     the users' records alone already made lying cost the liar.
//   - KeepRequest: no pending job is planned on fewer GPUs than it asked
//     for (shrink = true turns shrinking on, with ShrinkMargin): shrinking
//     by a guessed run time ended honest jobs at their own limits.
//   - PriorityMode is PriorityNice: Strata's order enters Slurm as a
//     nice within ±NiceBand, so the site's multifactor priority keeps
//     counting (docs/evaluation.d/accountability/30-site-policy.md); the
//     zero Options keep the absolute priorities.
//
// The configuration's [planner] section overrides these key by key.
func SiteDefaults() Options {
	return Options{Limits: DefaultLimits(), PriorityMode: PriorityNice, KeepRequest: true}
}

// Resolved returns o with every zero field that has a built-in default
// filled in: two options that plan alike resolve alike (a file that writes
// out a default and one that leaves it out).
func (o Options) Resolved() Options { return o.withDefaults() }
