// Package collect is the sampling loop of `strata collect`: it reads one
// sample per GPU from a source (DCGM, NVML, dcgm-exporter or a replay),
// attributes each GPU to the Slurm job holding it (Mapper: Slurm's
// gres_detail, a prolog/epilog mapping directory, a recorded schedule or the
// exporter's hpc_job labels), and writes samples and assignments to
// Postgres in batches, spooling them while the database is unreachable and
// refreshing the energy rollups. Its flags live in cmd/strata (Config).
package collect
