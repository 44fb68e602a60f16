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

// absLayouts are the ISO forms, tried in order: YYYY-MM-DD[THH:MM[:SS]]
// (also with a space).
var absLayouts = []string{
	"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02",
	"2006-01-02 15:04:05", "2006-01-02 15:04",
}

// monthDay matches sacct's MM/DD[/YY][-HH:MM[:SS]], MM.DD[.YY][-...] and
// MMDD[YY][-...] (a year of 2 or 4 digits; none: the current year).
var monthDay = regexp.MustCompile(`^(?:(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?|(\d{1,2})\.(\d{1,2})(?:\.(\d{2}|\d{4}))?|` +
	`(\d{2})(\d{2})(\d{2})?)` +
	`(?:-(\d{1,2}):(\d{2})(?::(\d{2}))?)?$`)

// clockTime matches sacct's HH:MM[:SS][AM|PM] (today).
var clockTime = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?$`)

// namedHours are sacct's named times of today.
var namedHours = map[string]int{"today": 0, "midnight": 0, "noon": 12, "elevenses": 11, "fika": 15, "teatime": 16}

// ParseTime parses a time as sacct's -S/-E do, relative to now in loc:
// YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY][-HH:MM[:SS]] (also MM.DD[.YY] and
// MMDD[YY]; no year: this year), HH:MM[:SS][AM|PM] (today), now,
// now-7days / now+2hours (units: seconds, minutes, hours, days, weeks; the
// default is seconds), today and midnight (00:00 today), noon, elevenses,
// fika, teatime, yesterday, tomorrow. RFC 3339 with a zone is accepted too.
func ParseTime(s string, now time.Time, loc *time.Location) (time.Time, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	now = now.In(loc)
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	if h, ok := namedHours[v]; ok {
		return midnight.Add(time.Duration(h) * time.Hour), nil
	}
	switch v {
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
	if m := monthDay.FindStringSubmatch(v); m != nil {
		if t, ok := monthDayTime(m, now, loc); ok {
			return t, nil
		}
	} else if m := clockTime.FindStringSubmatch(v); m != nil {
		if t, ok := clockOfDay(m[1], m[2], m[3], m[4], midnight); ok {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("parse time %q: want YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY][-HH:MM[:SS]], "+
		"HH:MM[:SS], now[-N{minutes|hours|days|weeks}], today or midnight", s)
}

// monthDayTime builds the time of a monthDay match; false for a date or
// time that does not exist (13/01, 02/30, 25:00).
func monthDayTime(m []string, now time.Time, loc *time.Location) (time.Time, bool) {
	mon, day, yr := m[1], m[2], m[3]
	if mon == "" {
		mon, day, yr = m[4], m[5], m[6]
	}
	if mon == "" {
		mon, day, yr = m[7], m[8], m[9]
	}
	y := now.Year()
	if yr != "" {
		y, _ = strconv.Atoi(yr)
		if len(yr) == 2 {
			y += 2000
		}
	}
	mo, _ := strconv.Atoi(mon)
	d, _ := strconv.Atoi(day)
	date := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, loc)
	if date.Month() != time.Month(mo) || date.Day() != d {
		return time.Time{}, false
	}
	if m[10] == "" {
		return date, true
	}
	return clockOfDay(m[10], m[11], m[12], "", date)
}

// clockOfDay is day's midnight plus HH:MM[:SS] (12-hour with am/pm).
func clockOfDay(hh, mm, ss, ampm string, day time.Time) (time.Time, bool) {
	h, _ := strconv.Atoi(hh)
	mi, _ := strconv.Atoi(mm)
	sec := 0
	if ss != "" {
		sec, _ = strconv.Atoi(ss)
	}
	if ampm != "" {
		if h < 1 || h > 12 {
			return time.Time{}, false
		}
		h %= 12
		if ampm == "pm" {
			h += 12
		}
	}
	if h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(day.Year(), day.Month(), day.Day(), h, mi, sec, 0, day.Location()), true
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
