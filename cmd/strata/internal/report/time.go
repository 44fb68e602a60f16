package report

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// relTime matches sacct's relative form: now[{+|-}count[unit]].
var relTime = regexp.MustCompile(`^now(?:([+-])(\d+)([a-z]*))?$`)

// relUnits are sacct's units for now±count (seconds by default).
var relUnits = map[string]time.Duration{
	"": time.Second, "s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
}

// absLayouts are the absolute forms sacct accepts that we support, tried in
// order: YYYY-MM-DD[THH:MM[:SS]] (also with a space), MM/DD[/YY], HH:MM[:SS].
var absLayouts = []string{
	"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02",
	"2006-01-02 15:04:05", "2006-01-02 15:04",
	"01/02/06", "01/02/2006",
}

// ParseTime parses a time as sacct's -S/-E do, relative to now in loc:
// YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], HH:MM[:SS] (today), now,
// now-7days / now+2hours (units: seconds, minutes, hours, days, weeks; the
// default is seconds), today and midnight (00:00 today), noon, yesterday,
// tomorrow. RFC 3339 with a zone is accepted too.
func ParseTime(s string, now time.Time, loc *time.Location) (time.Time, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	now = now.In(loc)
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	switch v {
	case "today", "midnight":
		return midnight, nil
	case "noon":
		return midnight.Add(12 * time.Hour), nil
	case "yesterday":
		return midnight.AddDate(0, 0, -1), nil
	case "tomorrow":
		return midnight.AddDate(0, 0, 1), nil
	}
	if m := relTime.FindStringSubmatch(v); m != nil {
		if m[1] == "" {
			return now, nil
		}
		unit, ok := relUnits[m[3]]
		if !ok {
			return time.Time{}, fmt.Errorf("parse time %q: unknown unit %q (want seconds, minutes, hours, days or weeks)", s, m[3])
		}
		n, err := strconv.ParseInt(m[2], 10, 32)
		if err != nil {
			return time.Time{}, fmt.Errorf("parse time %q: %w", s, err)
		}
		d := time.Duration(n) * unit
		if m[1] == "-" {
			d = -d
		}
		return now.Add(d), nil
	}
	u := strings.ToUpper(v)
	if t, err := time.Parse(time.RFC3339, u); err == nil {
		return t, nil
	}
	for _, l := range absLayouts {
		if t, err := time.ParseInLocation(l, u, loc); err == nil {
			return t, nil
		}
	}
	for _, l := range []string{"15:04:05", "15:04"} {
		if t, err := time.ParseInLocation(l, v, loc); err == nil {
			return midnight.Add(time.Duration(t.Hour())*time.Hour +
				time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second), nil
		}
	}
	return time.Time{}, fmt.Errorf("parse time %q: want YYYY-MM-DD[THH:MM[:SS]], HH:MM[:SS], now[-N{minutes|hours|days|weeks}], today or midnight", s)
}

// LoadZone loads a --timezone value. "Local" is resolved to the IANA name
// of the local zone (from TZ or the /etc/localtime link) because Postgres
// cuts day buckets by name: an abbreviation such as "EST" has no DST.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		for _, cand := range []string{os.Getenv("TZ"), localtimeLink()} {
			if l, err := time.LoadLocation(strings.TrimPrefix(cand, ":")); err == nil && cand != "" {
				return l, nil
			}
		}
		return time.Local, nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("parse --timezone: %w", err)
	}
	return l, nil
}

func localtimeLink() string {
	p, err := os.Readlink("/etc/localtime")
	if err != nil {
		return ""
	}
	if _, name, ok := strings.Cut(p, "zoneinfo/"); ok {
		return name
	}
	return ""
}
