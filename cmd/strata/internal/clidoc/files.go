package clidoc

// PackageFiles ends the manual page: where the .deb puts things.
const PackageFiles = `# FILES

*/etc/strata/strata.toml*
: the configuration (TOML; every flag is a key); */etc/strata/strata.toml.example* is the documented example

*/var/lib/strata*
: the collector's spool (StateDirectory of strata-collect.service)

*/usr/lib/systemd/system/strata.service*, *strata-collect.service*, *strata-serve.service*
: the daemon, the GPU collector and the web page; *strata-retention.timer* and *strata-report-refresh.timer* run **strata db retention** and **strata report refresh**

*/usr/share/strata/*
: a Grafana dashboard and Prometheus alert rules for the daemon's /metrics

# SEE ALSO

*/usr/share/doc/strata/operations.md* (install, configuration, metrics, packages), *telemetry.md*, *reports.md*, *hints.md*, *slurm.md*
`
