-- name: EnsureSamplePartition
SELECT strata_ensure_sample_partition($1::date);

-- name: UpsertGPUs
INSERT INTO gpu (gpu_uuid, host, device_index, minor, bus_id, mem_total, first_seen, last_seen)
SELECT u, h, i, m, b, t, s, s
FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::bigint[], $7::timestamptz[])
    AS x(u, h, i, m, b, t, s)
ON CONFLICT (gpu_uuid) DO UPDATE SET
    host         = excluded.host,
    device_index = excluded.device_index,
    minor        = excluded.minor,
    bus_id       = CASE WHEN excluded.bus_id <> '' THEN excluded.bus_id ELSE gpu.bus_id END,
    mem_total    = greatest(gpu.mem_total, excluded.mem_total),
    first_seen   = least(gpu.first_seen, excluded.first_seen),
    last_seen    = greatest(gpu.last_seen, excluded.last_seen);

-- name: CreateSampleStaging
CREATE TEMP TABLE IF NOT EXISTS gpu_sample_staging (LIKE gpu_sample INCLUDING DEFAULTS) ON COMMIT DROP;

-- name: MergeSampleStaging
INSERT INTO gpu_sample SELECT * FROM gpu_sample_staging ON CONFLICT (gpu_uuid, ts) DO NOTHING;

-- name: CountSamples
SELECT count(*) FROM gpu_sample WHERE ts >= $1 AND ts < $2;

-- name: SamplePartitions
SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'gpu_sample'::regclass ORDER BY c.relname;

-- name: DropSamplePartitions
SELECT strata_drop_sample_partitions($1::date);
