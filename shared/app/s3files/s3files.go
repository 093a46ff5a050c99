// Package s3files wires the store of contact imports' uploaded files (an
// S3 bucket, IMPORTS_BUCKET) into the Core: the mains of the functions
// that start or read an import pass app.WithFiles(New), and only they link
// the S3 client.
package s3files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/contactimport"
)

// Files is a bucket of uploaded files.
type Files struct {
	client  *s3.Client
	presign *s3.PresignClient
	bucket  string
}

var _ contactimport.Files = (*Files)(nil)

// New returns the files of cfg.ImportsBucket: in S3, or in the S3 emulator
// at cfg.S3Endpoint (path-style addressing, as emulators serve it).
func New(cfg app.Config) (contactimport.Files, error) {
	client, err := NewClient(cfg.S3Endpoint)
	if err != nil {
		return nil, err
	}
	return &Files{client: client, presign: s3.NewPresignClient(client), bucket: cfg.ImportsBucket}, nil
}

// NewClient returns an S3 client: for the S3 emulator when endpoint is set,
// else for AWS as a Lambda function sees it (see app.AWSConfig).
func NewClient(endpoint string) (*s3.Client, error) {
	cfg, err := app.AWSConfig("S3 emulator", endpoint)
	if err != nil {
		return nil, err
	}
	if endpoint == "" {
		return s3.NewFromConfig(cfg), nil
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
	}), nil
}

// UploadURL presigns a PUT of key for ttl. The URL carries the function
// role's signature: the upload is allowed exactly where the role may
// PutObject, the imports/ prefix.
func (f *Files) UploadURL(ctx context.Context, key string, ttl time.Duration) (string, error) {
	req, err := f.presign.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: &f.bucket, Key: &key, ContentType: aws.String("text/csv")},
		s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("presign upload: %w", err)
	}
	return req.URL, nil
}

// Size heads key.
func (f *Files) Size(ctx context.Context, key string) (int64, bool, error) {
	out, err := f.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &f.bucket, Key: &key})
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("head upload: %w", err)
	}
	return aws.ToInt64(out.ContentLength), true, nil
}

// Open reads key from offset (a ranged GET).
func (f *Files) Open(ctx context.Context, key string, offset int64) (io.ReadCloser, error) {
	in := &s3.GetObjectInput{Bucket: &f.bucket, Key: &key}
	if offset > 0 {
		in.Range = aws.String("bytes=" + strconv.FormatInt(offset, 10) + "-")
	}
	out, err := f.client.GetObject(ctx, in)
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "InvalidRange" {
		// The offset is the file's end: nothing is left to read.
		return io.NopCloser(http.NoBody), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read upload: %w", err)
	}
	return out.Body, nil
}

// Delete removes key. The bucket keeps no versions (template.yaml), so the
// file is gone for good; deleting a key that is not there succeeds.
func (f *Files) Delete(ctx context.Context, key string) error {
	if _, err := f.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &f.bucket, Key: &key}); err != nil {
		return fmt.Errorf("delete upload: %w", err)
	}
	return nil
}
