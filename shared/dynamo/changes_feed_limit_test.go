package dynamo_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/dynamo"
)

// TestFeedLimit: a change feed source reads one record first, then as many
// as the messages per record it has read say the page still needs (a
// launch slice's record of 500 messages fills a page alone; ledger entries
// of 2 messages need half the page's count), capped at 100; while none held
// a message, or once the consumer reads past its page, twice the last.
func TestFeedLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name                    string
		need, records, messages int
		last, want              int32
	}{
		{"first page", 100, 0, 0, 0, 1},
		{"after a launch record", 100, 1, 500, 1, 1},
		{"after an add-recipient's entry", 99, 1, 2, 1, 50},
		{"after single messages", 97, 3, 3, 1, 97},
		{"capped", 100, 1, 1, 1, 100},
		{"a need rounds up", 3, 2, 4, 1, 2},
		{"entries without messages", 100, 4, 0, 4, 8},
		{"without messages, capped", 100, 70, 0, 64, 100},
		{"past the page", 0, 10, 20, 8, 16},
	} {
		if got := dynamo.FeedLimit(tt.need, tt.records, tt.messages, tt.last); got != tt.want {
			t.Errorf("%s: feedLimit(%d, %d, %d, %d) = %d; want %d", tt.name, tt.need, tt.records, tt.messages, tt.last, got, tt.want)
		}
	}
}
