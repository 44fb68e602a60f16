// Package power is the power-down advisor (Helios' Cluster Energy Saving,
// CES): from a series of busy nodes per interval it forecasts the next
// hours' demand, says how many nodes to keep powered (busy ones plus a
// margin of spare ones), which idle nodes to power down through Slurm's
// power saving and when to wake them, and what that saves (idle node power
// × hours off).
//
// Two rules decide the number of nodes kept on (Config.Rule):
//
//   - RuleMargin (the default): keep max(busy now, the forecast's maximum
//     over the next Config.Horizon intervals) + Config.Buffer nodes on. With
//     the default forecaster (RecentMax) this is the recent maximum over a
//     window plus a margin. Nodes are woken as soon as the target rises
//     (before demand arrives when the forecast says so).
//   - RuleHelios: the power-state policy of the Helios artifact
//     (S-Lab-System-Group/HeliosArtifact, "framework/CES Service/CES_Helios.py"
//     and CES_Philly.py; Hu et al., "Characterization and Prediction of Deep
//     Learning Workloads in Large-Scale GPU Datacenters", SC'21): wake up to
//     busy + buffer when busy nodes exceed the powered ones, then keep the
//     count for Keep intervals; shrink to busy + buffer only when demand fell
//     (mean of the last History intervals − now ≥ HistThreshold), is forecast
//     to fall further (now − mean forecast over Future ≥ FutThreshold), is not
//     forecast to rise again (mean over Future ≥ mean over 2×Future), and the
//     cut is at least MinDecrease nodes. Helios forecasts with a LightGBM
//     model; here any Forecaster plugs in (Seasonal is the causal default;
//     Oracle, the true future, bounds what a perfect forecaster could do).
//
// Both obey what Slurm's power saving imposes: a node is powered down only
// once it has been idle for Config.SuspendTime (Slurm's SuspendTime), a
// woken node serves jobs only after Config.ResumeTimeout (it boots; Slurm's
// ResumeTimeout bounds it), and booting nodes draw power without serving.
// Demand above the nodes ready in an interval is a shortfall: jobs that wait
// for a node to boot.
//
// Replay runs a whole series (the validation on the Helios and Philly node
// series); Advise is the live advice for named nodes (`strata report
// power`). ReadSeries reads the node series of the shared traces.
//
// The package is pure like the planner: no I/O beyond the reader it is
// given, no clock, no goroutines, no logging; the same input gives the
// same output.
package power
