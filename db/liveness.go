package db

import (
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A peer that vanishes without a word (a black-holed network: no reset, no
// FIN) must not keep a Strata session, and with it the daemon's writer
// lock, for the kernel's two hours of default TCP keepalive. Both ends of
// every connection probe it:
//
//   - the server (per-session settings sent at connect, honoured by
//     Postgres 12+ on TCP, ignored on a unix socket): keepalive probes after
//     LivenessIdle without traffic, every LivenessInterval, LivenessCount
//     unanswered ones end the session; tcp_user_timeout ends it when data it
//     sent stays unacknowledged for LivenessUserTimeout;
//   - the client (the dialer): the same keepalive probes.
//
// So Postgres ends a black-holed client's session, and releases its
// advisory locks, within about LivenessIdle + LivenessCount ×
// LivenessInterval (25 s). Settings given in the database URL win.
const (
	LivenessIdle        = 10 * time.Second
	LivenessInterval    = 5 * time.Second
	LivenessCount       = 3
	LivenessUserTimeout = 25 * time.Second
)

// setLiveness applies the keepalive settings to pc.
func setLiveness(pc *pgxpool.Config) {
	rp := pc.ConnConfig.RuntimeParams
	for k, v := range map[string]string{
		"tcp_keepalives_idle":     strconv.Itoa(int(LivenessIdle / time.Second)),
		"tcp_keepalives_interval": strconv.Itoa(int(LivenessInterval / time.Second)),
		"tcp_keepalives_count":    strconv.Itoa(LivenessCount),
		"tcp_user_timeout":        strconv.Itoa(int(LivenessUserTimeout / time.Millisecond)),
	} {
		if _, set := rp[k]; !set {
			rp[k] = v
		}
	}
	d := &net.Dialer{KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: LivenessIdle,
		Interval: LivenessInterval, Count: LivenessCount}}
	pc.ConnConfig.DialFunc = d.DialContext
}
