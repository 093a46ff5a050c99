package mail

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
)

func TestOutboxRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "outbox", "mail.jsonl")
	o, err := NewOutbox(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Read(path); err != nil || len(got) != 0 {
		t.Fatalf("empty outbox: %v, %v", got, err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := o.Send(context.Background(), Message{To: "a@example.com", Subject: "s", HTML: "<p>line\nbreak</p>", RecipientID: string(rune('a' + i))}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 20 || got[0].HTML != "<p>line\nbreak</p>" {
		t.Fatalf("read %d messages, first %+v; want 20 intact", len(got), got[0])
	}
}
