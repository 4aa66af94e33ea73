"""The Stratus Console's Users page driven in headless Chromium, using only the page.

Usage: console_users_browser.py CONSOLE_URL COGNITO_CLIENT_ID

Opens the console URL `stratus serve --auth` printed and its Users page. zoe signs up through
the local Cognito's own endpoint with boto3, as an app would; the page's inbox shows her code,
which confirms her sign-up through the same endpoint, and her row turns CONFIRMED. yann signs
up too and is confirmed from the page, with the keyboard; "Run as" then offers him. Last, a user
is created with the page's form, disabled, and created again, which the page refuses, saying why.
Prints one line per check. On failure it writes a screenshot and the page's HTML into a
temporary directory, prints its path and exits with status 1.
"""

import re
import sys
from urllib.parse import urlsplit

import boto3
from botocore import UNSIGNED
from botocore.config import Config

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from console_page import Page, check, testid

url, client_id = sys.argv[1:3]
origin = f"http://{urlsplit(url).netloc}"
page = Page()
driver, wait = page.driver, page.wait
# SignUp and ConfirmSignUp take no credentials: the calls are not signed, as an app's are not.
idp = boto3.client("cognito-idp", endpoint_url=origin, region_name="us-east-1",
                   config=Config(signature_version=UNSIGNED))


find = page.find


def user_row(username):
    for row in driver.find_elements(By.CSS_SELECTOR, testid("user-row")):
        if row.get_attribute("data-username") == username:
            return row
    return None


def status_of(username):
    row = user_row(username)
    return row.find_element(By.CSS_SELECTOR, testid("user-status")).text if row else None


def inbox_code(username):
    for row in driver.find_elements(By.CSS_SELECTOR, testid("inbox-row")):
        if row.get_attribute("data-username") == username:
            return row.find_element(By.CSS_SELECTOR, testid("inbox-code")).text
    return None


try:
    driver.get(url)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    find("nav-users").click()
    wait.until(lambda _: user_row("alice") and user_row("bob"))
    check(status_of("alice") == "CONFIRMED", "the Users page lists the configured users")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    check(background == "rgb(13, 17, 23)", f"the page takes the dark theme when asked ({background})")

    idp.sign_up(ClientId=client_id, Username="zoe", Password="Zoe-pass1!",
                UserAttributes=[{"Name": "email", "Value": "zoe@example.com"}])
    wait.until(lambda _: inbox_code("zoe") and status_of("zoe"))
    code = inbox_code("zoe")
    check(re.fullmatch(r"\d{6}", code) is not None, f"the inbox shows zoe's confirmation code {code}")
    inbox_text = [r.text for r in driver.find_elements(By.CSS_SELECTOR, testid("inbox-row"))
                  if r.get_attribute("data-username") == "zoe"][0]
    check("zoe@example.com" in inbox_text and "confirm sign up" in inbox_text,
          f"the inbox says where the code went and what for: {inbox_text}")
    check(status_of("zoe") == "UNCONFIRMED", "zoe is UNCONFIRMED until she gives her code")
    idp.confirm_sign_up(ClientId=client_id, Username="zoe", ConfirmationCode=code)
    wait.until(lambda _: status_of("zoe") == "CONFIRMED")
    check(True, "the code from the inbox confirms zoe through the pool's endpoint")

    idp.sign_up(ClientId=client_id, Username="yann", Password="Yann-pass1!",
                UserAttributes=[{"Name": "email", "Value": "yann@example.com"}])
    wait.until(lambda _: status_of("yann") == "UNCONFIRMED" and inbox_code("yann"))
    codes = [c.text for c in driver.find_elements(By.CSS_SELECTOR, testid("inbox-code"))]
    check(codes[:2] == [inbox_code("yann"), code], "the inbox shows the newest code first")
    confirm = user_row("yann").find_element(By.CSS_SELECTOR, testid("user-confirm"))
    confirm.send_keys(Keys.ENTER)
    wait.until(lambda _: status_of("yann") == "CONFIRMED")
    check(True, "Confirm on yann's row (Enter) makes him CONFIRMED")
    wait.until(lambda _: "Cognito user yann" in find("identity-select").text)
    check(True, "Run as offers yann once he is confirmed")

    find("user-new-username").send_keys("walt")
    find("user-new-password").send_keys("Walt-pass1!")
    find("user-new-email").send_keys("walt@example.com", Keys.ENTER)
    wait.until(lambda _: status_of("walt") == "CONFIRMED")
    check("email=walt@example.com" in user_row("walt").text, "the form creates walt with his email")
    user_row("walt").find_element(By.CSS_SELECTOR, testid("user-disable")).click()
    wait.until(lambda _: user_row("walt").find_element(By.CSS_SELECTOR, 'td[data-field="enabled"]').text == "no")
    check(True, "Disable turns walt's row off")
    find("user-new-username").send_keys("walt")
    find("user-new-password").send_keys("Walt-pass1!", Keys.ENTER)
    status = driver.find_element(By.ID, "users-status")
    wait.until(lambda _: "already exists" in status.text)
    check(status.text == "AdminCreateUser refused: User already exists. Choose another username, or delete the "
          "user 'walt' first.", f"creating walt again is refused, saying what to do: {status.text}")
    print("console users browser test passed")
except Exception:
    page.fail()
finally:
    page.close()
