-- Queries of the store benchmark (scripts/benchstore): sizes and
-- housekeeping of its own throwaway database. Strata's own queries are in
-- db/queries/; the benchmark calls them through package db.

-- name: SampleBytes
-- Heap (with TOAST) and index bytes of every daily sample partition, and
-- how many partitions there are.
SELECT coalesce(sum(pg_table_size(c.oid)), 0)::bigint, coalesce(sum(pg_indexes_size(c.oid)), 0)::bigint, count(*)
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'gpu_sample'::regclass;

-- name: TableBytes
SELECT pg_table_size($1::regclass), pg_indexes_size($1::regclass);

-- name: DatabaseBytes
SELECT pg_database_size(current_database());

-- name: Analyze
-- What autovacuum would have done by the time anyone reads a report.
ANALYZE job, job_gpu_hour, job_host_day, gpu_assignment, gpu;

-- name: EnsurePartition
SELECT strata_ensure_sample_partition($1::date);

-- name: OldestPartition
SELECT min(c.relname) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'gpu_sample'::regclass;

-- name: Setting
SELECT current_setting($1::text);
