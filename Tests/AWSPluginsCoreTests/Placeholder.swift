// Tests for AWSPluginsCore.
