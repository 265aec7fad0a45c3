// Package tuning lists and sets the fields of a schedule value by path
// (AVX512F32.Streams.Closest.Groups): the generator's -set flag, the
// amd64 schedule's range checks and the gen tests that flip each field
// one at a time go through it. A path names struct fields from the root,
// the fields of an embedded struct promoted as Go promotes them; pointer
// fields (a schedule's Target) are not settings.
package tuning

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Field is one setting of a schedule: its path and the settable value.
type Field struct {
	Path  string
	Value reflect.Value
}

// Fields returns the bool, int, float64 and []string fields of each
// *root, in declaration order.
func Fields(roots ...any) []Field {
	var out []Field
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := range v.NumField() {
			f, fv := v.Type().Field(i), v.Field(i)
			path := prefix + f.Name
			switch {
			case f.Anonymous && fv.Kind() == reflect.Struct:
				walk(prefix, fv)
			case fv.Kind() == reflect.Struct:
				walk(path+".", fv)
			case fv.Kind() == reflect.Bool, fv.Kind() == reflect.Int, fv.Kind() == reflect.Float64,
				fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
				out = append(out, Field{path, fv})
			}
		}
	}
	for _, root := range roots {
		walk("", reflect.ValueOf(root).Elem())
	}
	return out
}

// Set applies assignment, "path=value", to the field of that path among
// the roots: true or false, an integer, a float, or comma-separated names
// (empty: none).
func Set(assignment string, roots ...any) error {
	path, text, ok := strings.Cut(assignment, "=")
	if !ok {
		return fmt.Errorf("%q: want path=value", assignment)
	}
	for _, f := range Fields(roots...) {
		if f.Path == path {
			return set(f.Value, text)
		}
	}
	return fmt.Errorf("%q: no such setting (go run . -list shows them)", path)
}

func set(v reflect.Value, text string) error {
	var x any
	var err error
	switch v.Kind() {
	case reflect.Bool:
		x, err = strconv.ParseBool(text)
	case reflect.Int:
		x, err = strconv.Atoi(text)
	case reflect.Float64:
		x, err = strconv.ParseFloat(text, 64)
	default:
		var names []string
		if text != "" {
			names = strings.Split(text, ",")
		}
		x = names
	}
	if err == nil {
		v.Set(reflect.ValueOf(x))
	}
	return err
}

// String returns f's value as Set reads it.
func (f Field) String() string {
	if f.Value.Kind() == reflect.Slice {
		return strings.Join(f.Value.Interface().([]string), ",")
	}
	return fmt.Sprint(f.Value.Interface())
}

// Steps returns every setting of fields one step from the default: each bool
// flipped, each int one up and one down, each fraction 0.1 up and down
// (within 0 to 1), each list of names emptied.
func Steps(fields []Field) []string {
	var out []string
	for _, f := range fields {
		v := f.Value
		switch v.Kind() {
		case reflect.Bool:
			out = append(out, fmt.Sprintf("%s=%v", f.Path, !v.Bool()))
		case reflect.Int:
			out = append(out, fmt.Sprintf("%s=%d", f.Path, v.Int()+1), fmt.Sprintf("%s=%d", f.Path, v.Int()-1))
		case reflect.Float64:
			for _, x := range []float64{v.Float() + 0.1, v.Float() - 0.1} {
				if x >= -1e-9 && x <= 1+1e-9 {
					out = append(out, fmt.Sprintf("%s=%.2f", f.Path, max(x, 0)))
				}
			}
		case reflect.Slice:
			if v.Len() > 0 {
				out = append(out, f.Path+"=")
			}
		}
	}
	return out
}
