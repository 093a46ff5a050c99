// @hey-api/openapi-ts's configuration for the SDK check: the fetch client, zod schemas of every
// response, and an SDK that validates each successful response against them. Imports carry .js, so
// that node runs what tsc emits.
export default {
  input: process.env.OPENAPI_DOC,
  output: { path: process.env.TS_OUT, importFileExtension: '.js' },
  plugins: ['@hey-api/client-fetch', 'zod', { name: '@hey-api/sdk', validator: true }],
};
