package clidoc

// PackageFiles ends the manual page: exit statuses, where the .deb puts
// things, examples and further documentation.
const PackageFiles = `# EXIT STATUS

**0**
: success; **strata hint check**: the hint is valid (warnings are printed)

**1**
: a failure at run time (Slurm or the database unreachable, a write refused); **strata hint check --strict**: the hint has warnings (a time limit shorter than the modelled run, a deadline that cannot be met); **strata report**: users (-u) or jobs (-j) named that have nothing in the window

**2**
: invalid input: an unknown command or flag, a value that does not parse, an invalid hint, a job script that does not exist or that sbatch would refuse, an invalid configuration (**strata config check**)

# FILES

*/etc/strata/strata.toml*
: the configuration (TOML; every flag is a key); */etc/strata/strata.toml.example* is the documented example

*/var/lib/strata*
: the collector's spool (StateDirectory of strata-collect.service)

*/usr/lib/systemd/system/strata.service*, *strata-collect.service*, *strata-serve.service*
: the daemon, the GPU collector and the web page; *strata-retention.timer* and *strata-report-refresh.timer* run **strata db retention** and **strata report refresh**

*/usr/share/strata/*
: a Grafana dashboard and Prometheus alert rules for the daemon's /metrics

# EXAMPLES

Check a job script before submitting it, as sbatch will read it:

    strata hint check --strict job.sbatch

Show the queue with the hints parsed, and what the planner would do, writing nothing:

    strata queue
    strata plan --dry-run

GPU energy by user over the last week, and the fields a report has:

    strata report energy --by user -S now-7days -E now
    strata report energy -o help

Inside a job script, size the launcher from Strata's decision:

    eval "$(strata env)"

After turning enforcement or claim binding off, see what Strata wrote to pending jobs and put it back:

    strata restore
    strata restore --enforce

Check the configuration, and that slurmrestd and Postgres answer:

    strata config check --connect

# SEE ALSO

*/usr/share/doc/strata/operations.md* (install, configuration, metrics, packages), *telemetry.md*, *reports.md*, *hints.md*, *slurm.md*
`
