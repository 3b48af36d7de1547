// The pinned SDK warns that Node 20 support ends; that warning is noise in tests.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
