// The lesson format this page reads: looplab._course.course.LESSON_FORMAT, which scripts/build_site.py
// writes into lessons/index.json. Lessons of another format are refused with a message that says
// why, never shown half-understood. No DOM: Node runs this in the tests.

export const LESSON_FORMAT = 1;

/** A lesson number as a learner writes it ("4", "04", "1b", " 1B ") as a lesson id ("04", "01b"),
 * the ids lessons/index.json gives (`number`); null when it is not a number. looplab reads mine(N)
 * by the same rule (looplab/_course/course.py number_id; tests/site/test_page_rules.py). */
export function lessonId(number) {
  const match = /^(\d{1,2})([a-z]?)$/.exec(String(number).trim().toLowerCase());
  return match ? match[1].padStart(2, "0") + match[2] : null;
}

/** The lessons listed in lessons/index.json; throws an Error saying why when their format is not this page's. */
export function readIndex(index) {
  const format = index && index.format;
  if (format !== LESSON_FORMAT) {
    throw new Error(
      `these lessons are in lesson format ${format ?? "(none given)"}, and this page reads format ${LESSON_FORMAT}: ` +
        "build the site again with the looplab the lessons came with",
    );
  }
  if (!Array.isArray(index.lessons)) throw new Error("lessons/index.json has no list of lessons");
  return index.lessons;
}
