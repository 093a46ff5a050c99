package localstack

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestS3StartsWithTheBucket: the emulator make run and make test start holds an object put into the
// imports bucket and gives it back, and is gone after Stop.
func TestS3StartsWithTheBucket(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartS3(context.Background(), root, 0)
	NeedInstalled(t, err)
	if err != nil {
		t.Fatal(err)
	}
	url := s.Endpoint() + "/" + s.Bucket() + "/probe.csv"
	req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader("email\na@example.com\n"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %s", resp.Status)
	}
	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "email\na@example.com\n" {
		t.Fatalf("GET gave %q", body)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(url); err == nil {
		t.Fatal("the emulator still answers after Stop")
	}
}
