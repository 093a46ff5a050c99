package metrics

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestCountWritesEMF(t *testing.T) {
	var buf bytes.Buffer
	r := New(&buf, "GiftCampaigns/test")
	r.now = func() time.Time { return time.UnixMilli(1_700_000_000_123) }

	r.Count("acme", map[string]int64{RecipientsAdded: 1, CreditsSpent: 45, InsufficientCredits: 0})

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("got %d lines, want 1: %q", len(lines), buf.String())
	}
	var got struct {
		AWS struct {
			Timestamp         int64 `json:"Timestamp"`
			CloudWatchMetrics []struct {
				Namespace  string              `json:"Namespace"`
				Dimensions [][]string          `json:"Dimensions"`
				Metrics    []map[string]string `json:"Metrics"`
			} `json:"CloudWatchMetrics"`
		} `json:"_aws"`
		OrgID               string `json:"organizationId"`
		RecipientsAdded     *int64 `json:"RecipientsAdded"`
		CreditsSpent        *int64 `json:"CreditsSpent"`
		InsufficientCredits *int64 `json:"InsufficientCredits"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	if got.AWS.Timestamp != 1_700_000_000_123 || len(got.AWS.CloudWatchMetrics) != 1 {
		t.Fatalf("_aws = %+v", got.AWS)
	}
	m := got.AWS.CloudWatchMetrics[0]
	if m.Namespace != "GiftCampaigns/test" || len(m.Dimensions) != 2 || len(m.Dimensions[0]) != 0 ||
		len(m.Dimensions[1]) != 1 || m.Dimensions[1][0] != "organizationId" {
		t.Errorf("namespace %q dimensions %v: want totals and per organization", m.Namespace, m.Dimensions)
	}
	if len(m.Metrics) != 2 {
		t.Errorf("metrics %v: want RecipientsAdded and CreditsSpent, zero counts left out", m.Metrics)
	}
	if got.OrgID != "acme" || got.RecipientsAdded == nil || *got.RecipientsAdded != 1 ||
		got.CreditsSpent == nil || *got.CreditsSpent != 45 || got.InsufficientCredits != nil {
		t.Errorf("values: %s", lines[0])
	}
}

func TestCountWritesNothing(t *testing.T) {
	for _, c := range []struct {
		name      string
		namespace string
		counts    map[string]int64
	}{
		{"no namespace", "", map[string]int64{EmailsSent: 1}},
		{"only zero counts", "GiftCampaigns/test", map[string]int64{EmailsSent: 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			New(&buf, c.namespace).Count("acme", c.counts)
			if buf.Len() != 0 {
				t.Errorf("wrote %q, want nothing", buf.String())
			}
		})
	}
}
