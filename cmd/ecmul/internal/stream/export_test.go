package stream

// NewRecordWriterForTest is newRecordWriter, for the external tests.
var NewRecordWriterForTest = newRecordWriter
