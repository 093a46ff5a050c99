package localstack

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"

	"github.com/giftcampaign/service/shared/app/sesmail"
)

func TestStartSES(t *testing.T) {
	t.Parallel()
	start := time.Now()
	ses, err := StartSES(t.Context(), testRoot(t), 0)
	NeedInstalled(t, err)
	t.Logf("started in %v at %s", time.Since(start), ses.Endpoint())
	t.Cleanup(func() { _ = ses.Stop() })

	client, err := sesmail.NewClient(ses.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.SendEmail(t.Context(), &sesv2.SendEmailInput{
		FromEmailAddress: aws.String("gifts@example.com"),
		Destination:      &types.Destination{ToAddresses: []string{"jane@example.com"}},
		Content: &types.EmailContent{Simple: &types.Message{
			Subject: &types.Content{Data: aws.String("Hello")},
			Body:    &types.Body{Text: &types.Content{Data: aws.String("Hi Jane")}},
			Headers: []types.MessageHeader{{Name: aws.String("X-Test"), Value: aws.String("1")}},
		}},
	})
	if err != nil {
		t.Fatalf("SendEmail: %v", err)
	}
	emails := ReadEmails(t, ses.Endpoint())
	if len(emails) != 1 {
		t.Fatalf("the emulator holds %d emails; want 1", len(emails))
	}
	got := emails[0]
	if got.MessageID != aws.ToString(out.MessageId) || got.Subject != "Hello" || got.Body.Text != "Hi Jane" ||
		got.Destination.To[0] != "jane@example.com" || got.Header("x-test") != "1" {
		t.Errorf("emulator holds %+v; want the message sent", got)
	}

	pid := ses.cmd.Process.Pid
	if err := ses.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(-%d, 0) after Stop = %v, want ESRCH", pid, err)
	}
}

func TestStartSESPortTaken(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if _, err := sesCLI(testRoot(t)); err != nil {
		NeedInstalled(t, err)
	}
	ses, err := StartSES(t.Context(), testRoot(t), port)
	if err == nil {
		_ = ses.Stop()
		t.Fatalf("StartSES on taken port %d: got nil error", port)
	}
	if !errors.Is(err, errExited) {
		t.Errorf("err = %v; want the emulator's exit reported", err)
	}
	t.Log(strconv.Itoa(port), err)
}
