package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// splitList splits a comma-separated list, dropping blanks and repeats.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// nameList parses the comma-separated list of flag with parse, in the order
// given, without repeats; an empty list is an error.
func nameList[T comparable](flag, list string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, name := range splitList(list) {
		v, err := parse(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: empty list", flag)
	}
	return out, nil
}

// orDefault extends parse with the name "default" (any case), which stands
// for T's zero value: the setting left for the library to choose.
func orDefault[T any](parse func(string) (T, error)) func(string) (T, error) {
	return func(s string) (T, error) {
		if strings.EqualFold(s, "default") {
			var zero T
			return zero, nil
		}
		return parse(s)
	}
}

// intList parses the comma-separated list of integers of flag, each at
// least least or one of words (any case), which stand for their values; in
// the order given, without repeats. An empty list is an error.
func intList(flag, list string, least int, words map[string]int) ([]int, error) {
	return nameList(flag, list, func(s string) (int, error) {
		for w, v := range words {
			if strings.EqualFold(s, w) {
				return v, nil
			}
		}
		if n, err := strconv.Atoi(s); err == nil && n >= least {
			return n, nil
		}
		want := fmt.Sprintf("an integer of at least %d", least)
		if len(words) > 0 {
			want += " or " + strings.Join(slices.Sorted(maps.Keys(words)), ", ")
		}
		return 0, errors.New(strconv.Quote(s) + " is not " + want)
	})
}
