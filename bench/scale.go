package main

import (
	"context"
)

// systemFigure is one whole-system figure of the report.
type systemFigure struct {
	figure, measured, target string
	// verdict is "pass", "miss", or empty when no target applies.
	verdict string
}

// bulkScenarios measures the work over large collections.
func bulkScenarios(ctx context.Context, e *env, o options) []systemFigure {
	return nil
}
