package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Numbers and durations too large for Strata's types are told so, with the
// largest value taken, rather than "want a duration" or "want a number"
// (issue 34.4: claim-floor = "9999999h" was told "want a duration ≥ 0").

// durationSyntax is the form time.ParseDuration reads; a value of this
// form that it refuses is past the largest duration.
var durationSyntax = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// maxDuration is the largest duration, in whole hours (about 292 years).
var maxDuration = fmt.Sprintf("%dh", int64(time.Duration(math.MaxInt64)/time.Hour))

// errTooLarge is a value past what its key's type holds.
var errTooLarge = errors.New("too large")

// parseDuration is time.ParseDuration with an error that says what is
// wrong: a value too large, or no duration at all.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err == nil {
		return d, nil
	}
	if durationSyntax.MatchString(strings.TrimSpace(s)) {
		return 0, fmt.Errorf("%w: want at most %s (about 292 years)", errTooLarge, maxDuration)
	}
	return 0, fmt.Errorf("want a duration such as \"90m\" or \"2h\"")
}

// Kinds of numeric flags, for numberRange.
const (
	kindInt = iota
	kindUint
	kindFloat
)

// numberRange says why s, a value of a numeric flag of kind, did not
// parse, when it is a number too large for the type; nil otherwise.
func numberRange(s string, kind int) error {
	s = strings.TrimSpace(s)
	var err error
	switch kind {
	case kindFloat:
		if _, err = strconv.ParseFloat(s, 64); errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%w: want a number of at most %g", errTooLarge, math.MaxFloat64)
		}
	case kindUint:
		if _, err = strconv.ParseUint(s, 0, 64); errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%w: want a whole number from 0 to %d", errTooLarge, uint64(math.MaxUint64))
		}
	default:
		if _, err = strconv.ParseInt(s, 0, 64); errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%w: want a whole number from %d to %d", errTooLarge, math.MinInt64, math.MaxInt64)
		}
	}
	return nil
}
