import Testing
@testable import VirtualTags
