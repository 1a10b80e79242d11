import Foundation
import Testing
import FeedParser

@Suite("Extensions")
struct ExtensionTests {
    @Test func itunesPodcast() throws {
        let doc = try Fixture.parse("podcast.xml")
        #expect(doc.items.count == 4)
        let e1 = doc.items[0], e2 = doc.items[1], e3 = doc.items[2], e4 = doc.items[3]
        #expect(e1.mediaType == "podcast")
        #expect(e1.mediaDurationSeconds == 3723)
        #expect(e1.thumbnailURL == "https://pod.example.com/ep1.jpg")
        #expect(e1.summary == "Ep one summary")
        #expect(e1.author == "Pod Host")
        #expect(e2.mediaDurationSeconds == 2730)
        #expect(e2.mediaMimeType == "audio/x-m4a")
        #expect(e2.author == "Guest Host")
        #expect(e2.thumbnailURL == "https://pod.example.com/cover.jpg")
        #expect(e3.mediaDurationSeconds == 5400)
        #expect(e3.mediaMimeType == nil)
        #expect(e3.mediaType == "podcast")
        #expect(e4.mediaDurationSeconds == 86_400)
    }

    @Test func youtubeEntry() throws {
        let doc = try Fixture.parse("youtube.xml")
        #expect(doc.format == .atom10)
        let v = try #require(doc.items.first)
        #expect(v.youtubeVideoID == "dQw4w9WgXcQ")
        #expect(v.mediaType == "video")
        #expect(v.mediaURL == "https://www.youtube.com/watch?v=dQw4w9WgXcQ")
        #expect(v.url == "https://www.youtube.com/watch?v=dQw4w9WgXcQ")
        #expect(v.thumbnailURL == "https://i1.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg")
        #expect(v.summary == "Video description line one. Second line.")
        #expect(v.author == "Some Channel")
        #expect(v.publishedAt == utc(2024, 6, 1, 12))
    }

    @Test func mediaRSSGroup() throws {
        let doc = try Fixture.parse("mediarss.xml")
        let clip = doc.items[0]
        #expect(clip.mediaType == "video")
        #expect(clip.mediaURL == "https://video.example.org/clip.webm")
        #expect(clip.mediaMimeType == "video/webm")
        #expect(clip.mediaDurationSeconds == 126)
        #expect(clip.thumbnailURL == "https://video.example.org/clip-poster.jpg")
        #expect(clip.summary == "Clip description")
        let photo = doc.items[1]
        #expect(photo.mediaType == nil)
        #expect(photo.thumbnailURL == "https://video.example.org/photo.jpg")
        let unsafe = doc.items[2]
        #expect(unsafe.thumbnailURL == "https://cdn.video.example.org/fallback.jpg")
    }

    @Test func durationForms() {
        #expect(MediaFields.duration("01:02:03") == 3723)
        #expect(MediaFields.duration("2:03") == 123)
        #expect(MediaFields.duration("90") == 90)
        #expect(MediaFields.duration("12.6") == 13)
        #expect(MediaFields.duration(" 1:00:00 ") == 3600)
        #expect(MediaFields.duration("30:00:00") == 86_400)
        #expect(MediaFields.duration("1:75") == nil)
        #expect(MediaFields.duration("abc") == nil)
        #expect(MediaFields.duration("0") == nil)
    }

    @Test func mimeTypes() {
        #expect(MediaFields.mimeType("Audio/MPEG") == "audio/mpeg")
        #expect(MediaFields.mimeType("video/mp4; codecs=\"avc1\"") == "video/mp4")
        #expect(MediaFields.mimeType("audio") == nil)
        #expect(MediaFields.mimeType("audio/mpeg<script>") == nil)
        #expect(MediaFields.mimeType("application/" + String(repeating: "x", count: 60)) == nil)
    }
}
